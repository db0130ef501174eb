package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Command-line mistakes are usage errors (exit 2, one line) that say what
// was meant; help is a command.
func TestCommandLineHints(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--dir", dir, "--threds", "4"}, "did you mean --threads?"},
		{[]string{"run", "--dir", dir, "--stonewall", "10"}, "write 10s"},
		{[]string{"run", "--dir", dir, "--threads", "1..16"}, "ioswarm sweep --threads 1..16"},
		{[]string{"run", "--dir", dir, "--hosts", ""}, "--hosts is empty"},
		{[]string{"run", "--dir", dir, "--threads", "600", "--total", "1GiB"}, "--threads 64 or fewer"},
		{[]string{"swep"}, `did you mean "sweep"?`},
		{[]string{"help", "swep"}, `did you mean "sweep"?`},
		{[]string{"compare", filepath.Join(dir, "A.json"), "B.json", "--no-chart"}, "A.json"},
		{[]string{"plot", filepath.Join(dir, "a.json"), "b.json", "--chart", "x"}, "a.json"},
		{[]string{"run", "--dir", dir, "--output", filepath.Join(dir, "no", "r.json")}, "--output"},
	} {
		stdout, stderr, code := run(t, c.args...)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%q: exit %d, stderr %q, want exit 2 and one line with %q (stdout %q)", c.args, code, stderr, c.want, stdout)
		}
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("bad command lines left %v", left)
	}
	for _, args := range [][]string{{"help"}, {"help", "run"}, {"run", "--help"}} {
		stdout, stderr, code := run(t, args...)
		if code != 0 || !strings.Contains(stdout, "USAGE") {
			t.Errorf("%q: exit %d\nstdout %s\nstderr %s", args, code, stdout, stderr)
		}
	}
	stdout, _, _ := run(t, "help", "run")
	for _, want := range []string{"I/O", "Sizes", "Launch", "SSH", "Output", "EXAMPLES:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run's help lacks %q", want)
		}
	}
}

// An existing --output is replaced, and the user is told so.
func TestOutputReplacedIsSaid(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "run", "--dir", dir, "--total", "8MiB", "--block", "1MiB", "--output", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if strings.Count(stderr, out) != 1 || !strings.Contains(stderr, "replaced") {
		t.Errorf("stderr %q, want one line saying %s is replaced", stderr, out)
	}
	job := loadResult(t, out)
	if !job.Complete || job.SessionID != job.JobID || len(job.Hosts) != 1 || job.Hosts[0].AbsDir != dir {
		t.Errorf("result: complete %v, job %s session %s, hosts %+v", job.Complete, job.JobID, job.SessionID, job.Hosts)
	}
}
