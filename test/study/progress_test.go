package study

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"ioswarm/study"
)

// progressLine is one progress report: phase, then "starting" before the
// ranks' first counts, else percent, rate, amount and ETA, and in a log
// "ended after" as the phase ends.
const progressLine = `(write|read): (starting|\s*\d+\.\d%  \d+\.\d{3} GB/s  \d.* of \d.*  ETA \S+|ended after \S+)`

// With stderr on a real pseudo-terminal, auto mode redraws one line in
// place: carriage return and erase, never a new line per report.
func TestProgressOnTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.Path(t), "run", "--local-ranks", "1", "--threads", "1", "--total", "1GiB",
		"--phases", "write", "--dir", t.TempDir(), "--output", out, "--format", "json")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy; reads end when it exits
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&screen, ptmx); close(copied) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, screen.String())
	}
	<-copied
	got := screen.String()
	if !strings.Contains(got, "\r\x1b[Kwrite: starting") {
		t.Fatalf("no progress line drawn on the terminal: %q", got)
	}
	if strings.Contains(got, "starting\n") || strings.Contains(got, "starting\r\n") {
		t.Errorf("a progress line scrolled instead of being redrawn: %q", got)
	}
	s, err := study.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	// Ranks send their counts once a second from the moment they get
	// the run request, which precedes the release: a phase of three
	// seconds or more must have shown at least one of them, even on a
	// busy machine where a count or its drawing comes late.
	if w := time.Duration(s.Points[0].Phases[0].WindowNS); w >= 3*time.Second {
		if !regexp.MustCompile(`\r\x1b\[Kwrite:\s+\d+\.\d%`).MatchString(got) {
			t.Errorf("a %v phase showed no counts: %q", w, got)
		}
	} else {
		t.Logf("write took %v: too short to require a count from the ranks", w)
	}
}

// In plain mode (a log file) the interval lines appear and nothing else:
// whole lines, no terminal control.
func TestProgressPlainLines(t *testing.T) {
	_, stderr, code := run(t, "run", "--local-ranks", "2", "--threads", "2", "--total", "1GiB",
		"--dir", t.TempDir(), "--progress", "plain", "--progress-interval", "200ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("terminal control in plain progress: %q", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	line := regexp.MustCompile(`^\d\d:\d\d:\d\d ` + progressLine + `$`)
	warning := false // within a warning, wrapped to 80 columns with its later lines indented
	for _, l := range lines {
		// Without root the cache-drop fallback warns, and a busy
		// machine may skew the starts; that is the log, not progress.
		warning = strings.HasPrefix(l, "warning: ") || warning && strings.HasPrefix(l, "  ")
		if !line.MatchString(l) && !warning {
			t.Errorf("not a progress line: %q", l)
		}
	}
	if len(lines) < 1 || lines[0] == "" {
		t.Fatalf("no progress line at a 200ms interval: %q", stderr)
	}
	// Each phase, however short, says in the log that it started and ended.
	for _, phase := range []string{"write", "read"} {
		if !strings.Contains(stderr, phase+": starting\n") || !strings.Contains(stderr, phase+": ended after") {
			t.Errorf("%s has no start and end line in the log:\n%s", phase, stderr)
		}
	}
}

// --quiet silences progress even when a mode is forced.
func TestQuietSilencesProgress(t *testing.T) {
	_, stderr, code := run(t, "run", "--local-ranks", "1", "--threads", "1", "--total", "64MiB",
		"--dir", t.TempDir(), "--progress", "tty", "--quiet")
	if code != 0 || stderr != "" {
		t.Errorf("exit %d, stderr %q: want 0 and nothing", code, stderr)
	}
	_, stderr, code = run(t, "run", "--progress", "fancy", "--dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, `--progress "fancy"`) {
		t.Errorf("bad mode: exit %d, %q", code, stderr)
	}
}
