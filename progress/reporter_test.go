package progress

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"ioswarm/internal/testio"
)

const gib = int64(1 << 30)

// On a terminal the line is redrawn in place (\r and erase, no newline),
// carries percent, rate and ETA, and is erased when the phase ends.
func TestTTYRedrawsOneLine(t *testing.T) {
	var out testio.LockedBuffer
	r := New(&out, TTY, time.Hour)
	r.SetPrefix("[4 threads]")
	r.Start("write", 1, 2*gib, 0)
	r.Update(gib/2, time.Second)
	r.Update(gib, 2*time.Second)
	r.Update(gib+1, 2*time.Second+time.Millisecond) // within redrawEvery: not drawn
	r.End()
	got := out.String()
	if strings.Contains(got, "\n") {
		t.Errorf("a terminal line must not scroll: %q", got)
	}
	frames := strings.Split(got, clearLine)
	want := []string{"", "[4 threads] write: starting",
		"[4 threads] write:  25.0%  0.537 GB/s  512 MiB of 2.00 GiB  ETA 3s",
		"[4 threads] write:  50.0%  0.537 GB/s  1.00 GiB of 2.00 GiB  ETA 2s", ""}
	if fmt.Sprint(frames) != fmt.Sprint(want) {
		t.Errorf("frames\n%q\nwant\n%q", frames, want)
	}
}

// In plain mode whole lines appear: one as the phase starts, one every
// interval with a time of day, one as it ends, and nothing else: no
// carriage returns, no escapes, nothing after End.
func TestPlainIntervalLinesOnly(t *testing.T) {
	var out testio.LockedBuffer
	r := New(&out, Plain, 20*time.Millisecond)
	r.Start("read", 2, 4*gib, 0)
	r.Update(gib, 2*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r.End()
	got := out.String()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) < 4 {
		t.Fatalf("%d lines in 10s at a 20ms interval: %q", len(lines), got)
	}
	first := regexp.MustCompile(`^\d\d:\d\d:\d\d read \(iteration 2\): starting$`)
	line := regexp.MustCompile(`^\d\d:\d\d:\d\d read \(iteration 2\):  25\.0%  0\.537 GB/s  1\.00 GiB of 4\.00 GiB  ETA 6s$`)
	last := regexp.MustCompile(`^\d\d:\d\d:\d\d read \(iteration 2\): ended after \S+$`)
	if !first.MatchString(lines[0]) || !last.MatchString(lines[len(lines)-1]) {
		t.Errorf("first %q, last %q", lines[0], lines[len(lines)-1])
	}
	for _, l := range lines[1 : len(lines)-1] {
		if !line.MatchString(l) {
			t.Errorf("unexpected line %q", l)
		}
	}
	if strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("terminal control in plain output: %q", got)
	}
	time.Sleep(60 * time.Millisecond)
	if after := out.String(); after != got {
		t.Errorf("lines after End: %q", after[len(got):])
	}
}

// A phase shorter than the interval still leaves a line as it starts
// and one as it ends in a batch log.
func TestPlainShortPhaseLeavesLines(t *testing.T) {
	var out testio.LockedBuffer
	r := New(&out, Plain, time.Hour)
	r.Start("randread", 1, gib, 0)
	r.End()
	got := out.String()
	if !strings.Contains(got, "randread: starting\n") || !strings.Contains(got, "randread: ended after") {
		t.Errorf("short phase in a batch log:\n%s", got)
	}
}

// The ETA of a phase with a stonewall is the time left before it.
func TestETAHonoursTheStonewall(t *testing.T) {
	p := &phaseState{name: "randread", total: 100 * gib, limit: 10 * time.Second}
	p.add(gib, 2*time.Second) // 0.5 GiB/s: 198 s to the end, 8 s to the stonewall
	if s := p.summary(); !strings.HasSuffix(s, "ETA 8s") {
		t.Errorf("summary %q, want ETA 8s", s)
	}
	p.limit = 0
	if s := p.summary(); strings.HasSuffix(s, "ETA 8s") {
		t.Errorf("no stonewall: %q", s)
	}
}

// A phase no rank has reported on yet is shown as starting once, not at
// every interval; its first figures then appear as usual.
func TestPlainStartingOnce(t *testing.T) {
	var out testio.LockedBuffer
	r := New(&out, Plain, 10*time.Millisecond)
	r.Start("write", 1, 4*gib, 0)
	time.Sleep(80 * time.Millisecond) // several intervals with no update
	r.Update(gib, 2*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "25.0%") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r.End()
	got := out.String()
	if n := strings.Count(got, "write: starting"); n != 1 {
		t.Errorf("\"write: starting\" printed %d times:\n%s", n, got)
	}
	if !strings.Contains(got, "25.0%") {
		t.Errorf("no figures after the first update:\n%s", got)
	}
}

// Updates that arrive after End (a rank's late note) change nothing.
func TestUpdateAfterEndIgnored(t *testing.T) {
	var out testio.LockedBuffer
	r := New(&out, TTY, time.Hour)
	r.Start("write", 1, gib, 0)
	r.End()
	before := out.String()
	r.Update(gib/2, time.Second)
	if out.String() != before {
		t.Errorf("drawn after End: %q", out.String()[len(before):])
	}
}

func TestModes(t *testing.T) {
	if r := New(&testio.LockedBuffer{}, Off, time.Second); r != nil {
		t.Error("Off must give no reporter")
	}
	if r := New(&testio.LockedBuffer{}, Auto, time.Second); r == nil || r.tty {
		t.Error("Auto on a buffer must be plain")
	}
	for _, bad := range []string{"", "TTY", "yes"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) accepted", bad)
		}
	}
	if m, err := ParseMode("plain"); err != nil || m != Plain {
		t.Errorf("ParseMode(plain) = %v, %v", m, err)
	}
}

// Auto picks the terminal mode on a real pseudo-terminal and not on a
// regular file.
func TestAutoDetectsTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if r := New(tty, Auto, time.Second); r == nil || !r.tty {
		t.Error("Auto on a pseudo-terminal must be tty")
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
}

// A log line on a terminal erases the progress line, and the progress
// line comes back under it.
func TestLogLinesDoNotCollide(t *testing.T) {
	var out testio.LockedBuffer
	r := New(&out, TTY, time.Hour)
	log := r.Writer(&out)
	fmt.Fprintf(log, "before any phase\n")
	r.Start("write", 1, gib, 0)
	fmt.Fprintf(log, "warning: something\n")
	r.End()
	want := "before any phase\n" + clearLine + "write: starting" + clearLine + "warning: something\n" +
		clearLine + "write: starting" + clearLine
	if got := out.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Run with -race: notes, log lines and phase ends from different
// goroutines.
func TestConcurrentUse(t *testing.T) {
	for _, mode := range []Mode{TTY, Plain} {
		var out testio.LockedBuffer
		r := New(&out, mode, time.Millisecond)
		log := r.Writer(&out)
		var wg sync.WaitGroup
		for p := 0; p < 20; p++ {
			r.Start("write", p+1, gib, 0)
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					r.Update(int64(i)<<20, time.Duration(i)*time.Millisecond*300)
				}
			}()
			go func() {
				defer wg.Done()
				fmt.Fprintf(log, "log line\n")
			}()
			r.End()
		}
		wg.Wait()
		r.End()
	}
}

func TestRateWindow(t *testing.T) {
	p := &phaseState{total: 100 * gib}
	p.add(0, 0)
	p.add(10e9, 10*time.Second) // 1 GB/s on average
	p.add(13e9, 11*time.Second)
	p.add(16e9, 12*time.Second) // now 3 GB/s
	if got := p.rate(); got < 2.9e9 || got > 3.1e9 {
		t.Errorf("rate %.3g, want about 3e9 (the last seconds, not the average)", got)
	}
	one := &phaseState{total: gib}
	one.add(gib/4, time.Second)
	if got := one.rate(); got != float64(gib/4) {
		t.Errorf("first sample: rate %v, want the average since release", got)
	}
	// A second rank's note 4 ms later must not read as 250 GB/s.
	one.add(gib/2, time.Second+4*time.Millisecond)
	if got := one.rate(); got > float64(gib) {
		t.Errorf("two notes 4 ms apart: rate %.3g, want the average since release", got)
	}
}

// Byte counts are units.FormatBytes's, tested there.
func TestFormats(t *testing.T) {
	for d, want := range map[time.Duration]string{4 * time.Second: "4s", 185 * time.Second: "3m05s", 7800 * time.Second: "2h10m"} {
		if got := etaText(d); got != want {
			t.Errorf("etaText(%v) = %q, want %q", d, got, want)
		}
	}
}
