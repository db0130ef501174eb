package oracle

import (
	"testing"

	"golang.org/x/sys/unix"
)

// --o-sync and --o-dsync reach the kernel: every file a thread moved data
// through, in every phase, was opened with O_SYNC (IOzone -o), or with
// O_DSYNC and not O_SYNC (IOzone -+D), as the kernel's own openat shows;
// and a buffered write keeps its first-done figure, since each write was
// on stable storage when it returned. On Linux O_SYNC is O_DSYNC and a
// bit of its own, so the two are told apart by that bit.
func TestSyncFlagsOpenEveryFileSo(t *testing.T) {
	for _, c := range []struct {
		flag string
		want int64 // the flags' O_SYNC bits the open must carry: O_SYNC or O_DSYNC alone
	}{
		{"--o-sync", unix.O_SYNC},
		{"--o-dsync", unix.O_DSYNC},
	} {
		t.Run(c.flag, func(t *testing.T) {
			tr := newTracer(t)
			job := runTraced(t, tr, []string{bin.Path(t), "run", "--dir", t.TempDir(), "--threads", "2", "--file-size", "4MiB", "--block", "1MiB",
				"--phases", "write,read,randwrite,randread", c.flag, "--format", "json", "--progress", "off", "--drop-caches", "off"})
			if got := map[string]bool{"--o-sync": job.Config.OSync, "--o-dsync": job.Config.ODSync}; !got[c.flag] || job.Config.OSync == job.Config.ODSync {
				t.Errorf("the result's config says o_sync %v, o_dsync %v", job.Config.OSync, job.Config.ODSync)
			}
			ss := sessions(tr.events(t))
			if want := 2 * len(job.Phases); len(ss) != want {
				t.Errorf("the kernel saw %d file sessions, want %d (2 threads × %d phases)", len(ss), want, len(job.Phases))
			}
			for _, s := range ss {
				if got := s.flags & unix.O_SYNC; got != c.want {
					t.Errorf("thread %d opened its file with flags %#x: sync bits %#x, want %#x", s.tid, s.flags, got, c.want)
				}
			}
			for _, p := range job.Phases {
				if p.Name == "write" && (p.FirstDoneNote != "" || p.FirstDoneBandwidth <= 0) {
					t.Errorf("write with %s: first-done %g, note %q; want the figure", c.flag, p.FirstDoneBandwidth, p.FirstDoneNote)
				}
			}
		})
	}
}
