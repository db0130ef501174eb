package local

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// oneLineError checks a usage error: exit 2 and exactly one line on
// stderr holding every want.
func oneLineError(t *testing.T, o harness.Outcome, wants ...string) {
	t.Helper()
	if o.Code != 2 {
		t.Fatalf("exit %d, want 2\nstderr: %q", o.Code, o.Stderr)
	}
	if lines := strings.Split(strings.TrimRight(o.Stderr, "\n"), "\n"); len(lines) != 1 {
		t.Fatalf("want one error line, got %d: %q", len(lines), o.Stderr)
	}
	for _, w := range wants {
		if !strings.Contains(o.Stderr, w) {
			t.Errorf("error %q lacks %q", o.Stderr, w)
		}
	}
}

// A control character in a value the user typed is echoed escaped: the
// error stays one line. Before, `ioswarm iozone $'-\n'` and
// `--dir $'/x\ny'` printed two.
func TestControlCharactersEchoedQuoted(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"iozone option", []string{"iozone", "-\n"}, `-\n`},
		{"dir", []string{"run", "--dir", "/x\ny"}, `"/x\ny"`},
		{"threads", []string{"run", "--dir", dir, "--threads", "4\n"}, `"4\n"`},
		{"escape sequence", []string{"run", "--dir", dir + "/\x1b[2J"}, `\x1b[2J`},
		{"hosts", []string{"run", "--dir", dir, "--launcher", "ssh", "--hosts", "a\nb"}, `a\nb`},
	} {
		t.Run(c.name, func(t *testing.T) {
			oneLineError(t, harness.RunCmd(t, exec.Command(bin.Path(t), c.args...), 2*time.Minute), c.want)
		})
	}
}

// A FIFO named as --output or --csv is refused before anything starts,
// at once: opening it for writing used to wait for a reader, for good,
// deaf to SIGINT and SIGTERM.
func TestFIFOOutputRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "out")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--output", "--csv"} {
		t.Run(flag, func(t *testing.T) {
			cmd := exec.Command(bin.Path(t), "run", "--dir", dir, "--total", "4MiB", "--block", "1MiB", flag, fifo)
			// A hang is what failed here before; only a hang reaches this.
			oneLineError(t, harness.RunCmd(t, cmd, 60*time.Second), flag, "FIFO")
			if left := dirEntries(t, dir); len(left) != 0 {
				t.Fatalf("the refused run created %v", left)
			}
		})
	}
}
