package local

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/clock"
	"ioswarm/figures"
	"ioswarm/result"
)

// diskDir is a temp dir on /var/tmp: t.TempDir is under $TMPDIR, which may
// be a tmpfs, and these tests want the disk filesystem.
func diskDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "ioswarm-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// runDirect runs with --direct, skipping the test where the filesystem
// refuses O_DIRECT (the refusal is itself checked in package rank).
func runDirect(t *testing.T, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, code := run(t, append(args, "--direct")...)
	if code != 0 && strings.Contains(stderr, "refuses O_DIRECT") {
		t.Skipf("the test filesystem refuses O_DIRECT: %s", stderr)
	}
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	return stdout, stderr
}

// histogramCount is the number of latencies a phase recorded.
func histogramCount(p *result.Phase) int64 {
	var n int64
	if p.Histogram != nil {
		for _, c := range p.Histogram.Counts {
			n += c
		}
	}
	return n
}

func TestRandomPhasesDirect(t *testing.T) {
	dir := diskDir(t)
	out := filepath.Join(t.TempDir(), "r.json")
	runDirect(t, "run", "--local-ranks", "2", "--threads", "3", "--dir", dir, "--total", "12MiB",
		"--block", "1MiB", "--phases", "randwrite,randread", "--output", out, "--quiet")
	job := loadResult(t, out)
	if !job.Config.Direct || len(job.Phases) != 2 {
		t.Fatalf("direct=%v, %d phases", job.Config.Direct, len(job.Phases))
	}
	const ops = 12 << 20 / 4096 // one op per 4 KiB block of every file
	for i, name := range []string{"randwrite", "randread"} {
		p := &job.Phases[i]
		if p.Name != name || p.Ops != ops || p.Bytes != ops*4096 || p.IOPS <= 0 || p.CacheDrop != "direct" {
			t.Errorf("%s: name %s ops %d bytes %d iops %.0f cache %q", name, p.Name, p.Ops, p.Bytes, p.IOPS, p.CacheDrop)
		}
		l := p.Latency
		if !(0 < l.P50 && l.P50 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
			t.Errorf("%s: latency percentiles out of order: %+v", name, l)
		}
		if n := histogramCount(p); n != p.Ops {
			t.Errorf("%s: histogram holds %d latencies for %d ops", name, n, p.Ops)
		}
	}
	if err := figures.Check(job); err != nil {
		t.Fatal(err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
}

func TestIterationsSummary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := run(t, "run", "--threads", "2", "--dir", t.TempDir(), "--total", "8MiB",
		"--block", "1MiB", "--phases", "write,randread", "--iterations", "3", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	job := loadResult(t, out)
	iters := map[string][]int{}
	for _, p := range job.Phases {
		iters[p.Name] = append(iters[p.Name], p.Iteration)
	}
	for _, name := range []string{"write", "randread"} {
		if fmt.Sprint(iters[name]) != "[1 2 3]" {
			t.Errorf("%s iterations %v, want [1 2 3]", name, iters[name])
		}
	}
	if err := figures.Check(job); err != nil {
		t.Fatal(err)
	}
	// The JSON carries the same summary (Check has verified it against
	// the phases): one entry per phase name, over 3 iterations.
	if len(job.Summary) != 2 || job.Summary[0].Name != "write" || job.Summary[1].Name != "randread" ||
		job.Summary[0].Bandwidth.N != 3 || job.Summary[1].IOPS.N != 3 {
		t.Fatalf("summary in the result file: %+v", job.Summary)
	}
	_, summary, ok := strings.Cut(stdout, "across n iterations")
	if !ok {
		t.Fatalf("no summary block:\n%s", stdout)
	}
	// The summary rows carry mean ± sample stddev (n−1), min and max of
	// the three iterations, recomputed here from the records.
	for _, c := range []struct {
		phase, figure string
		scale         float64
		format        string
		value         func(*result.Phase) float64
	}{
		{"write", "bandwidth GB/s", 1e9, "%.3f", func(p *result.Phase) float64 { return p.Bandwidth }},
		{"randread", "bandwidth GB/s", 1e9, "%.3f", func(p *result.Phase) float64 { return p.Bandwidth }},
		{"randread", "IOPS", 1, "%.0f", func(p *result.Phase) float64 { return p.IOPS }},
	} {
		var xs []float64
		for i := range job.Phases {
			if job.Phases[i].Name == c.phase {
				xs = append(xs, c.value(&job.Phases[i])/c.scale)
			}
		}
		mean, sd, lo, hi := stats(xs)
		f := c.format
		want := strings.Fields(fmt.Sprintf("%s 3 %s "+f+" ± "+f+" "+f+" "+f, c.phase, c.figure, mean, sd, lo, hi))
		if !hasRow(summary, want) {
			t.Errorf("summary lacks the row %q:\n%s", strings.Join(want, " "), summary)
		}
	}
}

// stats is mean, sample standard deviation (n−1), min and max.
func stats(xs []float64) (mean, sd, lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		mean += x / float64(len(xs))
		lo, hi = min(lo, x), max(hi, x)
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean) / float64(len(xs)-1)
	}
	return mean, math.Sqrt(sd), lo, hi
}

// hasRow reports whether some line of text has exactly the fields want.
func hasRow(text string, want []string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.Join(strings.Fields(line), " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}

// A stonewall cuts both a sequential writer and a random reader. The run
// is sized to take about half a second a phase here (16384 O_DIRECT ops of
// 4 KiB at queue depth 1 on 2 threads); a machine fast enough to finish
// inside the stonewall skips rather than passes.
func TestStonewallCutsAndWritersFinish(t *testing.T) {
	const stonewall = 200 * time.Millisecond
	const threads, fileSize = 2, 32 << 20
	dir := diskDir(t)
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, _ := runDirect(t, "run", "--threads", "2", "--dir", dir, "--file-size", "32MiB",
		"--block", "4KiB", "--phases", "write,randread", "--stonewall", stonewall.String(),
		"--keep", "--output", out)
	job := loadResult(t, out)
	for i := range job.Phases {
		p := &job.Phases[i]
		if !p.Stonewalled {
			if p.WindowNS > int64(2*stonewall) {
				t.Errorf("%s ran %s, past the %s stonewall, and was not cut", p.Name, time.Duration(p.WindowNS), stonewall)
			} else {
				t.Skipf("%s finished in %s, inside the stonewall: too fast to cut", p.Name, time.Duration(p.WindowNS))
			}
			continue
		}
		t.Logf("%s: stonewalled after %d of %d bytes in %s", p.Name, p.Bytes, threads*fileSize, time.Duration(p.WindowNS))
		if p.TimedBytes != p.Bytes || p.Bytes >= threads*fileSize || p.Bytes <= 0 {
			t.Errorf("%s: timed %d bytes of %d reported, total %d", p.Name, p.TimedBytes, p.Bytes, threads*fileSize)
		}
		// Timing stopped at the deadline: generous bound for a busy machine.
		if p.WindowNS > int64(stonewall+2*time.Second) {
			t.Errorf("%s: window %s after a %s stonewall", p.Name, time.Duration(p.WindowNS), stonewall)
		}
		if n := histogramCount(p); n != p.Ops {
			t.Errorf("%s: histogram holds %d latencies for %d timed ops", p.Name, n, p.Ops)
		}
	}
	if !strings.Contains(stdout, "* stonewalled") {
		t.Errorf("table has no stonewall note:\n%s", stdout)
	}
	if err := figures.Check(job); err != nil {
		t.Fatal(err)
	}
	// The writers finished their files untimed: full size, every unit
	// stamped with its offset and thread.
	for th := 0; th < threads; th++ {
		data, err := os.ReadFile(filepath.Join(dir, "ioswarm-"+job.JobID, fmt.Sprintf("t%d.dat", th)))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != fileSize {
			t.Fatalf("t%d.dat is %d bytes, want %d", th, len(data), fileSize)
		}
		for off := 0; off < fileSize; off += 512 {
			u := data[off:]
			if binary.LittleEndian.Uint64(u) != uint64(off) || binary.LittleEndian.Uint32(u[8:]) != uint32(th) {
				t.Fatalf("t%d.dat: unit at %d stamped offset %d thread %d", th, off,
					binary.LittleEndian.Uint64(u), binary.LittleEndian.Uint32(u[8:]))
			}
		}
	}
}

func TestVerifyPassesOnCleanData(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := run(t, "run", "--local-ranks", "2", "--threads", "3", "--dir", t.TempDir(),
		"--total", "12MiB", "--block", "1MiB", "--phases", "write,read,randwrite,randread", "--verify", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range loadResult(t, out).Phases {
		if want := p.Name == "read" || p.Name == "randread"; p.Verified != want {
			t.Errorf("%s: verified %v, want %v", p.Name, p.Verified, want)
		}
	}
	if !strings.Contains(stdout, "read, randread: data verified while reading, inside the timed window") {
		t.Errorf("table does not say verification was timed:\n%s", stdout)
	}
}

// The test corrupts a byte of the file between the write and the read
// phase of one run. It does so the moment the file reaches full size,
// which the writer reaches only after its last record; the read phase
// starts no sooner than after fsync, close, the records' gathering, a cache
// drop and the coordinator's 200 ms release lead, so the corruption lands
// first on any sane machine. If it ever did not, the run passes and the
// result shows the read phase starting before the corruption: the test
// then skips instead of failing, and fails only when verification missed
// a corruption that was in place before the read began.
func TestVerifyCatchesCorruptBlock(t *testing.T) {
	const fileSize, bad = 16 << 20, 5<<20 + 700
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(bin.Path(t), "run", "--threads", "1", "--dir", dir, "--file-size", "16MiB",
		"--block", "1MiB", "--phases", "write,read", "--verify", "--output", out, "--format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	path := waitFullFile(t, dir, fileSize, &stderr)
	corruptAt(t, path, bad)
	corrupted := clock.Now()
	err := cmd.Wait()
	job := loadResult(t, out)
	if err == nil {
		for _, p := range job.Phases {
			if p.Name == "read" && p.StartNS < corrupted {
				t.Skipf("the read phase began %s before the corruption landed", time.Duration(corrupted-p.StartNS))
			}
		}
		t.Fatalf("verify passed a file corrupted at offset %d before the read phase", bad)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
	}
	t.Logf("reported: %s", strings.TrimSpace(stderr.String()))
	host := job.Hosts[0].Host
	for _, want := range []string{"host " + host + " rank 0", path, fmt.Sprintf("offset %d:", bad/512*512)} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("error lacks %q:\n%s", want, stderr.String())
		}
	}
	if job.Complete {
		t.Error("result says complete after a verification failure")
	}
}

// waitFullFile polls dir until the job's first thread file has size bytes
// and returns its path.
func waitFullFile(t *testing.T, dir string, size int64, stderr *bytes.Buffer) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, "ioswarm-*", "t0.dat")); len(m) == 1 {
			if st, err := os.Stat(m[0]); err == nil && st.Size() == size {
				return m[0]
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the file never reached %d bytes; stderr:\n%s", size, stderr.String())
	return ""
}

func corruptAt(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}
