package local

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/figures"
	"ioswarm/result"
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
	written := loadResult(t, out1)
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
	read := loadResult(t, out2)
	if read.Config.ReusedJob != written.JobID {
		t.Errorf("the read did not reuse job %s: %q", written.JobID, read.Config.ReusedJob)
	}
	if err := figures.Check(read); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	if len(read.Phases) != 1 || read.Phases[0].Name != "read" || !read.Phases[0].Verified {
		t.Errorf("phases: %+v", read.Phases)
	}
	if after := fileIDs(t, jobDir); !equalIDs(before, after) {
		t.Errorf("the read changed the kept files:\nbefore %v\nafter  %v", before, after)
	}

	// A second read with another -s names the difference.
	if _, stderr, code := runIn(t, dir, "iozone", "-i1", "-r", "1M", "-s", "16m", "-t", "4"); code != 2 || !strings.Contains(stderr, "wrote files of 8388608 bytes") {
		t.Errorf("-s mismatch: exit %d\n%s", code, stderr)
	}
}

func TestIOzoneRefusesWhatItCannotRun(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"iozone", "-i0", "-t", "2", "-q", "4k"}, "-q"},
		{[]string{"iozone", "-i0", "-t", "2", "-s", "8m", "-r", "1m", "-b", "out.xls"}, "-b"},
		{[]string{"iozone", "-i1", "-t", "2", "-s", "8m", "-r", "1m"}, "no kept job"},
	}
	for _, c := range cases {
		_, stderr, code := runIn(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line naming %q:\n%s", c.args, code, c.want, stderr)
		}
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
	var jobs []*result.Job
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &jobs) != nil || len(jobs) != 2 {
		t.Fatalf("--output holds %d jobs (%v)", len(jobs), err)
	}
	if jobs[0].Config.Threads != 1 || jobs[1].Config.Threads != 2 {
		t.Errorf("threads %d, %d", jobs[0].Config.Threads, jobs[1].Config.Threads)
	}
	if !strings.Contains(stdout, "Throughput report") {
		t.Errorf("-R table missing:\n%s", stdout)
	}
}
