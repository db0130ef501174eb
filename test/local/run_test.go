package local

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
)

// The core proof: 5 threads over 3 local ranks; every figure recomputed from
// the records equals the reported one; placement is round-robin; nothing is
// left behind.
func TestRunThreeRanksFiveThreads(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := run(t, "run", "--local-ranks", "3", "--threads", "5", "--dir", dir,
		"--total", "20MiB", "--block", "1MiB", "--output", out, "--format", "table")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	job := loadResult(t, out)
	if !job.Complete || job.Launcher != "local" || len(job.Hosts) != 3 {
		t.Fatalf("complete=%v launcher=%q hosts=%d", job.Complete, job.Launcher, len(job.Hosts))
	}
	if len(job.Phases) != 2 || job.Phases[0].Name != "write" || job.Phases[1].Name != "read" {
		t.Fatalf("phases: %+v", job.Phases)
	}
	for _, p := range job.Phases {
		if p.Bytes != 20<<20 {
			t.Errorf("%s: bytes %d, want %d", p.Name, p.Bytes, 20<<20)
		}
		if len(p.Threads) != 5 {
			t.Fatalf("%s: %d thread records, want 5", p.Name, len(p.Threads))
		}
		for _, th := range p.Threads {
			if th.Rank != th.Thread%3 {
				t.Errorf("%s: thread %d on rank %d, want %d", p.Name, th.Thread, th.Rank, th.Thread%3)
			}
			if th.Bytes != 4<<20 || th.EndNS <= th.StartNS {
				t.Errorf("%s: thread %d: bytes %d, start %d end %d", p.Name, th.Thread, th.Bytes, th.StartNS, th.EndNS)
			}
		}
		if p.Bandwidth <= 0 || p.SumOfRates <= 0 || (p.FirstDoneBandwidth <= 0) != (p.FirstDoneNote != "") {
			t.Errorf("%s: figures not positive (first-done withheld only with a note): %+v", p.Name, p)
		}
	}
	// The first phase of a session has no measurement of how long the
	// ranks take to start their threads and is released 200 ms ahead; the
	// next is released from what the first measured, at least 20 ms
	// ahead, and what was left of it is what the ranks said.
	// (Each lead also covers four times the worst clock error, which
	// load can raise: the 2 s cap is on the measured part.)
	var maxErr int64
	for _, h := range job.Hosts {
		maxErr = max(maxErr, h.ClockErrorNS)
	}
	if w, r := job.Phases[0], job.Phases[1]; w.ReleaseLeadNS < int64(200*time.Millisecond) ||
		r.ReleaseLeadNS < int64(20*time.Millisecond) || r.ReleaseLeadNS > int64(2*time.Second)+4*maxErr {
		t.Errorf("release leads: write %v, read %v; want 200 ms and then 20 ms to 2 s",
			time.Duration(w.ReleaseLeadNS), time.Duration(r.ReleaseLeadNS))
	}
	// The ready moment follows the run request, so no more than the lead
	// is left. Some is left on an idle machine; a loaded one may ready the
	// threads after the release, and then the phase must say so.
	for _, p := range job.Phases {
		if p.ReleaseMarginNS > p.ReleaseLeadNS {
			t.Errorf("%s: %v of the %v lead left when the last threads were ready; want no more than the lead",
				p.Name, time.Duration(p.ReleaseMarginNS), time.Duration(p.ReleaseLeadNS))
		}
		if p.ReleaseMarginNS < 0 && !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "after the release") }) {
			t.Errorf("%s: threads ready %v after the release, and no warning says so: %q",
				p.Name, time.Duration(-p.ReleaseMarginNS), p.Warnings)
		}
	}
	for _, h := range job.Hosts {
		if h.FSType == "" || h.FSType == "unknown" || h.Kernel == "" {
			t.Errorf("host record incomplete: %+v", h)
		}
	}
	if err := figures.Check(job); err != nil {
		t.Fatalf("figures do not recompute from the records: %v", err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Fatalf("files left in --dir: %v", left)
	}
	for _, want := range []string{"write", "read", "GB/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

// --keep leaves each thread's file at its size, filled with the stamped
// pattern, not zeros.
func TestKeepLeavesPatternedFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := run(t, "run", "--local-ranks", "2", "--threads", "3", "--dir", dir,
		"--file-size", "2MiB", "--block", "1MiB", "--keep", "--output", out, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	job := loadResult(t, out)
	jd := filepath.Join(dir, "ioswarm-"+job.JobID)
	for th := 0; th < 3; th++ {
		data, err := os.ReadFile(filepath.Join(jd, "t"+string(rune('0'+th))+".dat"))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != 2<<20 {
			t.Fatalf("t%d.dat is %d bytes, want %d", th, len(data), 2<<20)
		}
		// Stamps hold small integers (about 2% zero bytes); the rest is random.
		if bytes.Count(data, []byte{0}) > len(data)/20 {
			t.Fatalf("t%d.dat is mostly zeros", th)
		}
		// The unit at 1 MiB is stamped with its offset and thread.
		u := data[1<<20:]
		if binary.LittleEndian.Uint64(u) != 1<<20 || binary.LittleEndian.Uint32(u[8:]) != uint32(th) {
			t.Fatalf("t%d.dat: stamp at 1MiB says offset %d thread %d", th,
				binary.LittleEndian.Uint64(u), binary.LittleEndian.Uint32(u[8:]))
		}
	}
}
