package sshlaunch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// startOne prepares and starts one rank on s with PrepareStart, the rank
// given args and a secret line that names the address it was given.
func startOne(t *testing.T, s *testServer, bin string, log *testio.LockedBuffer, rank int, args ...string) launcher.Proc {
	t.Helper()
	l := testSSH(t, s, bin, log)
	spec := func(tg launcher.Target, addr string) ([]string, []byte) {
		return args, []byte("c0ffee " + addr + "\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	procs, err := l.PrepareStart(ctx, []launcher.Target{sshTarget(s, rank)}, spec)
	if err != nil {
		t.Fatalf("PrepareStart: %v", err)
	}
	if len(procs) != 1 {
		t.Fatalf("PrepareStart gave %d ranks, want 1", len(procs))
	}
	return procs[0]
}

// On a node holding a stamped copy, the rank starts in the one session
// that finds it: no probe, no second session. It gets its input, its
// standard error comes back, and it is killed by the PID that session
// announced when it ignores everything else. A copy whose stamp is gone
// is probed, stamped and started in that same session; a cold node is
// probed, copied to, and started in the probe's session: two sessions.
func TestSSHWarmStartTakesOneSession(t *testing.T) {
	s := newTestServer(t)
	s.noSignal = true
	bin := writeFakeRank(t)

	var cold testio.LockedBuffer
	p := startOne(t, s, bin, &cold, 2, "--job", "j")
	waitLog(t, &cold, "[127.0.0.1 rank 2] secret c0ffee 127.0.0.1, args rank --job j")
	p.Stop()
	if n := len(s.seen()); n != 2 || copies(s) != 1 {
		t.Fatalf("cold start: %d sessions, %d copies (%q); want the quick start (probe, then rank) and a copy", n, copies(s), s.seen())
	}

	before := len(s.seen())
	var warm testio.LockedBuffer
	p = startOne(t, s, bin, &warm, 1, "stubborn")
	waitLog(t, &warm, "[127.0.0.1 rank 1] secret c0ffee 127.0.0.1, args rank stubborn")
	if got := s.seen()[before:]; len(got) != 1 || !strings.Contains(got[0], `echo "start $$ $HOME"`) {
		t.Fatalf("warm start ran %q; want the quick start alone", got)
	}
	if !strings.Contains(warm.String(), "copied to 0, already cached on 1") {
		t.Errorf("warm start's log: %q", warm.String())
	}
	p.Stop()
	if err := p.Err(); err == nil || err.Error() != "killed by signal KILL" && err.Error() != "exit status 137" {
		t.Errorf("stubborn rank ended with %v, want killed by signal KILL", err)
	}
	if got := s.seen()[before:]; len(got) != 2 || !strings.HasPrefix(got[1], "kill -KILL ") {
		t.Errorf("stopping the stubborn rank ran %q; want a kill by PID", got)
	}

	b, _ := inspectBinary(bin, "")
	stamps, _ := filepath.Glob(filepath.Join(s.home, rankproto.CacheDir(b.hash), "ioswarm.verified.*"))
	if len(stamps) != 1 {
		t.Fatalf("stamps %q, want one", stamps)
	}
	os.Remove(stamps[0])
	before = len(s.seen())
	var unstamped testio.LockedBuffer
	p = startOne(t, s, bin, &unstamped, 0, "--job", "k")
	waitLog(t, &unstamped, "[127.0.0.1 rank 0] secret c0ffee 127.0.0.1, args rank --job k")
	p.Stop()
	if got := s.seen()[before:]; len(got) != 1 || copies(s) != 1 {
		t.Errorf("start without a stamp ran %q, %d copies in all; want the quick start alone (probing, then the rank)", got, copies(s))
	}
	if _, err := os.Stat(stamps[0]); err != nil {
		t.Errorf("the probe did not stamp the copy again: %v", err)
	}
}

// A login shell that prints before the command runs makes the quick
// start's answer unreadable: the node fails with the probe's words, and
// the job secret is not sent to whatever answered.
func TestSSHQuickStartRefusesGarbledAnswer(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	var log testio.LockedBuffer
	startOne(t, s, bin, &log, 0, "--job", "j").Stop() // places and stamps the copy
	dir := t.TempDir()
	chatty := "#!/bin/sh\necho 'Welcome to node1'\nexec /bin/sh \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "sh"), []byte(chatty), 0o755); err != nil {
		t.Fatal(err)
	}
	s.path = dir + ":" + os.Getenv("PATH")
	var garbled testio.LockedBuffer
	l := testSSH(t, s, bin, &garbled)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	spec := func(launcher.Target, string) ([]string, []byte) { return []string{"--job", "g"}, []byte("5ecret\n") }
	_, err := l.PrepareStart(ctx, []launcher.Target{sshTarget(s, 0)}, spec)
	if err == nil || !strings.Contains(err.Error(), `unexpected answer "Welcome to node1`) ||
		!strings.Contains(err.Error(), "login shell") {
		t.Fatalf("PrepareStart: %v; want the unexpected answer named", err)
	}
	l.Close()
	// The rank behind the greeting reads its input's end and logs what it
	// got: an empty line, not the secret.
	secrets := filepath.Join(s.home, "secrets")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(secrets)
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) >= 2 {
			if lines[1] != "secret=" {
				t.Errorf("the rank behind the garbled answer read %q", lines[1])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rank behind the garbled answer never ended; %s holds %q", secrets, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A host listed nine times gets two connections; with PrepareStart, cold
// and then warm, all nine ranks start with their own arguments and
// input, the first of them on a warm node by the quick start alone.
func TestSSHPrepareStartManyRanksOnOneHost(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	var targets []launcher.Target
	for r := range 9 {
		targets = append(targets, sshTarget(s, r))
	}
	spec := func(tg launcher.Target, addr string) ([]string, []byte) {
		return []string{"--rank", fmt.Sprint(tg.Rank)}, []byte(fmt.Sprintf("s%d\n", tg.Rank))
	}
	for _, run := range []string{"cold", "warm"} {
		before, quickBefore := len(s.seen()), ran(s, `echo "start $$ $HOME"`)
		var log testio.LockedBuffer
		l := testSSH(t, s, bin, &log)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		procs, err := l.PrepareStart(ctx, targets, spec)
		cancel()
		if err != nil || len(procs) != 9 {
			t.Fatalf("%s: PrepareStart: %d ranks, %v", run, len(procs), err)
		}
		for r := range 9 {
			waitLog(t, &log, fmt.Sprintf("[127.0.0.1 rank %d] secret s%d, args rank --rank %d\n", r, r, r))
		}
		quick := ran(s, `echo "start $$ $HOME"`) - quickBefore
		if got := len(s.seen()) - before; run == "warm" && (got != 9 || quick != 1) {
			t.Errorf("warm: %d sessions, %d quick starts; want 9 and 1 (one quick start, eight ranks)", got, quick)
		}
		l.Close()
		for _, p := range procs {
			waitProcDone(t, p, 5*time.Second)
		}
	}
	if copies(s) != 1 {
		t.Errorf("%d copies to one host, want 1", copies(s))
	}
}

// On a node where the quick start's checks never pass (its stat lacks
// --printf), the probe's session still starts the rank once the copy is
// in place: two sessions cold (the probe's and the copy's), one warm (a
// probe that finds the copy stamped), and the job secret read by the
// rank alone, once per start.
func TestSSHProbeSessionStartsTheRank(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	dir := t.TempDir()
	stat, err := exec.LookPath("stat")
	if err != nil {
		t.Skip("no stat on this machine")
	}
	noPrintf := "#!/bin/sh\ncase \"$1\" in --printf) exit 1;; esac\nexec " + stat + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(noPrintf), 0o755); err != nil {
		t.Fatal(err)
	}
	s.path = dir + ":" + os.Getenv("PATH")
	for i, want := range []int{2, 1} {
		before := len(s.seen())
		var log testio.LockedBuffer
		p := startOne(t, s, bin, &log, i, "--job", "n")
		waitLog(t, &log, fmt.Sprintf("[127.0.0.1 rank %d] secret c0ffee 127.0.0.1, args rank --job n", i))
		p.Stop()
		if got := s.seen()[before:]; len(got) != want || copies(s) != 1 || !strings.Contains(got[0], "echo probe") {
			t.Errorf("start %d ran %q (%d copies in all); want %d sessions, the first the quick start", i, got, copies(s), want)
		}
		b, _ := os.ReadFile(filepath.Join(s.home, "secrets"))
		if n := strings.Count(string(b), "c0ffee"); n != i+1 {
			t.Errorf("after start %d the secret was read %d times (%q)", i, n, b)
		}
	}
}
