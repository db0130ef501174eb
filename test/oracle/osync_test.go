package oracle

import (
	"testing"

	"golang.org/x/sys/unix"
)

// --o-sync reaches the kernel: every file a thread moved data through, in
// every phase and engine, was opened with O_SYNC (IOzone -o), as the
// kernel's own openat shows; and a buffered write keeps its first-done
// figure, since each write was on stable storage when it returned.
func TestOSyncOpensEveryFileWithOSync(t *testing.T) {
	tr := newTracer(t)
	job := runTraced(t, tr, []string{bin.Path(t), "run", "--dir", t.TempDir(), "--threads", "2", "--file-size", "4MiB", "--block", "1MiB",
		"--phases", "write,read,randwrite,randread", "--o-sync", "--format", "json", "--progress", "off", "--drop-caches", "off"})
	if !job.Config.OSync {
		t.Error("the result's config does not say o_sync")
	}
	ss := sessions(tr.events(t))
	if want := 2 * len(job.Phases); len(ss) != want {
		t.Errorf("the kernel saw %d file sessions, want %d (2 threads × %d phases)", len(ss), want, len(job.Phases))
	}
	for _, s := range ss {
		if s.flags&unix.O_SYNC != unix.O_SYNC {
			t.Errorf("thread %d opened its file with flags %#x: no O_SYNC", s.tid, s.flags)
		}
	}
	for _, p := range job.Phases {
		if p.Name == "write" && (p.FirstDoneNote != "" || p.FirstDoneBandwidth <= 0) {
			t.Errorf("write with O_SYNC: first-done %g, note %q; want the figure", p.FirstDoneBandwidth, p.FirstDoneNote)
		}
	}
}
