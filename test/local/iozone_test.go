package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/figures"
	"ioswarm/iozone"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/settings"
)

// The seeds' workflow as two IOzone command lines: -i0 -w writes and
// keeps the files, a second command -i1 reads exactly those files; the
// report carries IOzone's lines beside ours, and the JSON recomputes.
func TestIOzoneWriteThenReadAsTwoCommands(t *testing.T) {
	dir := t.TempDir()
	out1, out2 := filepath.Join(t.TempDir(), "w.json"), filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := runIn(t, dir, "iozone", "-i0", "-c", "-e", "-w", "-r", "1M", "-s", "8m", "-t", "4", "-+n", "--output", out1)
	if code != 0 {
		t.Fatalf("iozone -i0 -w: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"Children see throughput for  4 initial writers", "Parent sees throughput for  4 initial writers",
		"Min xfer", "kB/sec"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("write report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "rewriters") {
		t.Errorf("-+n ran the rewrite:\n%s", stdout)
	}
	written := loadIOzoneJob(t, out1)
	if written.Config.ReadShift != 0 || written.Config.FileSize != 8<<20 || written.Config.BlockSize != 1<<20 || !written.Config.Keep {
		t.Errorf("config %+v", written.Config)
	}
	jobDir := filepath.Join(dir, "ioswarm-"+written.JobID)
	before := fileIDs(t, jobDir)

	stdout, stderr, code = runIn(t, dir, "iozone", "-i1", "-c", "-e", "-w", "-r", "1M", "-s", "8m", "-t", "4", "-+n", "--verify", "--output", out2)
	if code != 0 {
		t.Fatalf("iozone -i1: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Children see throughput for  4 readers") {
		t.Errorf("read report:\n%s", stdout)
	}
	read := loadIOzoneJob(t, out2)
	if read.Config.ReusedJob != written.JobID {
		t.Errorf("the read did not reuse job %s: %q", written.JobID, read.Config.ReusedJob)
	}
	if err := figures.Check(read); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	if len(read.Phases) != 1 || read.Phases[0].Name != "read" || !read.Phases[0].Verified {
		t.Fatalf("phases: %+v", read.Phases)
	}
	// ioswarm emptied the cache before the read (drop_caches as root, the
	// job's files without), where IOzone would have read what was left
	// in memory: stderr says so, stdout stays IOzone's.
	if d := read.Phases[0].CacheDrop; d != settings.DropCaches && d != settings.DropFadvise {
		t.Errorf("read after cache drop %q, want drop_caches or fadvise", d)
	} else if !strings.Contains(stderr, "("+string(d)+") before read; IOzone never does") || strings.Contains(stdout, "IOzone never does") {
		t.Errorf("no note on stderr alone that IOzone would not have dropped the cache:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if after := fileIDs(t, jobDir); !equalIDs(before, after) {
		t.Errorf("the read changed the kept files:\nbefore %v\nafter  %v", before, after)
	}

	// A second read with another -s names the difference in IOzone's
	// terms: its option and sizes in kB.
	if _, stderr, code := runIn(t, dir, "iozone", "-i1", "-r", "1M", "-s", "16m", "-t", "4"); code != 2 ||
		!strings.Contains(stderr, "iozone -s 16384 kB") || !strings.Contains(stderr, "are 8192 kB") {
		t.Errorf("-s mismatch: exit %d\n%s", code, stderr)
	}
}

// loadIOzone reads ioswarm iozone's JSON, checking that each job in it
// is a result file any reader of results accepts.
func loadIOzone(t *testing.T, path string) *iozone.Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := iozone.ReadResult(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for i, run := range res.Runs {
		if run.Job == nil {
			t.Fatalf("%s: run %d has no job", path, i)
		}
		raw, err := json.Marshal(run.Job)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := report.LoadJob(bytes.NewReader(raw), path); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	return res
}

// loadIOzoneJob is the job of a one-thread-count ioswarm iozone JSON.
func loadIOzoneJob(t *testing.T, path string) *result.Job {
	t.Helper()
	res := loadIOzone(t, path)
	if len(res.Runs) != 1 {
		t.Fatalf("%s: %d runs, want 1", path, len(res.Runs))
	}
	return res.Runs[0].Job
}

func TestIOzoneRefusesWhatItCannotRun(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"iozone", "-i0", "-t", "2", "-q", "4k"}, "-q"},
		{[]string{"iozone", "-i0", "-t", "2", "-s", "8m", "-r", "1m", "-b", "/nonexistent/out.xls"}, "-b /nonexistent/out.xls: cannot be created"},
		{[]string{"iozone", "-i1", "-t", "2", "-s", "8m", "-r", "1m"}, "add -w to the write command"},
	}
	for _, c := range cases {
		_, stderr, code := runIn(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line naming %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	if left, err := os.ReadDir(dir); err != nil || len(left) > 0 {
		t.Errorf("refused lines left %v in their directory (%v)", left, err)
	}
	threadlist := filepath.Join(t.TempDir(), "threadlist")
	if err := os.WriteFile(threadlist, []byte("localhost "+dir+" /usr/bin/iozone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runIn(t, dir, "iozone", "-i0", "-t", "2", "-s", "8m", "-r", "1m", "-+m", threadlist)
	if code != 2 || !strings.Contains(stderr, "more threads") {
		t.Errorf("-t 2 with a one-line client file: exit %d\n%s", code, stderr)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("refused commands left %v", left)
	}
}

// -l/-u runs one job per process count and saves them all.
func TestIOzoneProcessRange(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "all.json")
	stdout, stderr, code := runIn(t, dir, "iozone", "-i0", "-i1", "-+n", "-r", "1m", "-s", "4m", "-l", "1", "-u", "2", "-R", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	res := loadIOzone(t, out)
	if len(res.Runs) != 2 || res.Runs[0].Job.Config.Threads != 1 || res.Runs[1].Job.Config.Threads != 2 {
		t.Fatalf("--output holds %d runs, want one job for -l 1 and one for -u 2", len(res.Runs))
	}
	if !strings.Contains(stdout, "Throughput report") {
		t.Errorf("-R table missing:\n%s", stdout)
	}
}

// The equivalent `ioswarm run` line on stderr, run as printed, is the
// same job: the same workload in the config, the kept files read back.
func TestIOzoneEquivalentRunIsTheSameJob(t *testing.T) {
	dir := t.TempDir()
	for _, line := range []string{"-i0 -c -e -w -r 64k -s 1m -t 2 -+n", "-i1 -i2 -w -r 64k -s 1m -t 2 -+n"} {
		out := filepath.Join(t.TempDir(), "iozone.json")
		_, stderr, code := runIn(t, dir, append(append([]string{"iozone"}, strings.Fields(line)...), "--output", out)...)
		if code != 0 {
			t.Fatalf("iozone %s: exit %d\n%s", line, code, stderr)
		}
		const mark = "ran the same job as: ioswarm "
		i := strings.Index(stderr, mark)
		if i < 0 {
			t.Fatalf("iozone %s: no equivalent line on stderr:\n%s", line, stderr)
		}
		equivalent := strings.Fields(strings.SplitN(stderr[i+len(mark):], "\n", 2)[0])
		runOut := filepath.Join(t.TempDir(), "run.json")
		_, stderr, code = runIn(t, dir, append(equivalent, "--output", runOut)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", strings.Join(equivalent, " "), code, stderr)
		}
		a, b := loadIOzoneJob(t, out).Config, loadResult(t, runOut).Config
		same := a.Threads == b.Threads && a.FileSize == b.FileSize && a.BlockSize == b.BlockSize &&
			a.RandBlockSize == b.RandBlockSize && a.Phases.String() == b.Phases.String() &&
			a.Fsync == b.Fsync && a.Keep == b.Keep && a.ReadShift == b.ReadShift && a.ReusedJob == b.ReusedJob &&
			a.RandOrder == b.RandOrder && a.RandCall == b.RandCall && a.FirstDoneStop == b.FirstDoneStop &&
			a.RandTimeNS == b.RandTimeNS
		if !same {
			t.Errorf("iozone %s and %s ran different jobs:\n%+v\n%+v", line, strings.Join(equivalent, " "), a, b)
		}
		// IOzone's random tests lseek and then read or write.
		want := settings.CallPread
		if strings.Contains(line, "-i2") {
			want = settings.CallLseek
		}
		if a.RandCall != want {
			t.Errorf("iozone %s: rand_call %q, want %q", line, a.RandCall, want)
		}
	}
}

// A read with a smaller -t than the write reads the first -t kept files,
// as IOzone does; without -w it would leave the rest orphaned, and is
// refused in IOzone's terms.
func TestIOzoneReadsTheFirstKeptFiles(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "iozone", "-i0", "-w", "-r", "64k", "-s", "1m", "-t", "4", "-+n"); code != 0 {
		t.Fatalf("write: exit %d\n%s", code, stderr)
	}
	kept := dirEntries(t, dir)
	if len(kept) != 1 {
		t.Fatalf("kept %v, want one job directory", kept)
	}
	jobDir := filepath.Join(dir, kept[0])
	before := fileIDs(t, jobDir)
	out := filepath.Join(t.TempDir(), "r.json")
	if _, stderr, code := runIn(t, dir, "iozone", "-i1", "-w", "-r", "64k", "-s", "1m", "-t", "2", "-+n", "--verify", "--output", out); code != 0 {
		t.Fatalf("-i1 -t 2: exit %d\n%s", code, stderr)
	}
	read := loadIOzoneJob(t, out)
	if len(read.Phases) != 1 || len(read.Phases[0].Threads) != 2 || !read.Phases[0].Verified {
		t.Fatalf("phases %+v", read.Phases)
	}
	for _, th := range read.Phases[0].Threads {
		// Files are named relative to the working directory, IOzone's.
		if want := filepath.Join(kept[0], fmt.Sprintf("t%d.dat", th.Thread)); !strings.HasSuffix(th.File, want) {
			t.Errorf("thread %d read %s, want the kept %s", th.Thread, th.File, want)
		}
	}
	if after := fileIDs(t, jobDir); !equalIDs(before, after) {
		t.Errorf("the read changed the kept files:\nbefore %v\nafter  %v", before, after)
	}
	// All four are still readable: the manifest still names them.
	if _, stderr, code := runIn(t, dir, "iozone", "-i1", "-w", "-r", "64k", "-s", "1m", "-t", "4", "-+n"); code != 0 {
		t.Errorf("-i1 -t 4 after -t 2: exit %d\n%s", code, stderr)
	}
	_, stderr, code := runIn(t, dir, "iozone", "-i1", "-r", "64k", "-s", "1m", "-t", "2", "-+n")
	if code != 2 || !strings.Contains(stderr, "add -w to read the first 2") {
		t.Errorf("-i1 -t 2 without -w: exit %d\n%s", code, stderr)
	}
	if after := fileIDs(t, jobDir); !equalIDs(before, after) {
		t.Errorf("a refused read changed the kept files")
	}
}
