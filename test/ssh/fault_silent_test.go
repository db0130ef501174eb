package ssh

import (
	"strings"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// A node whose link goes down mid-run falls silent: the coordinator fails
// the job at the heartbeat timeout naming that node and rank (see
// wantSilence), and exits
// within 10 s of the fault. Nothing reaches the node meanwhile, and its
// files sit in a directory only it sees, so the only one who can remove
// them is its rank: hearing no heartbeat either, it stops and removes them
// within its own heartbeat timeout, before the link is even back.
func TestLinkDownMidPhase(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	e.privateDir(t, "node3")
	run := e.startFault(t, "node3")
	fault := time.Now()
	if err := e.c.LinkDown("node3"); err != nil {
		t.Fatal(err)
	}
	linkUp := func() {
		if err := e.c.LinkUp("node3"); err != nil {
			t.Error(err)
		}
	}
	defer linkUp()
	code, took := waitFault(t, run.cmd, fault, bound)
	msg := finalError(t, run.stderr.String(), "host node3 rank 2")
	wantSilence(t, msg)
	if code != 1 {
		t.Errorf("exit %d after %v, want 1", code, took)
	}
	t.Logf("exit %d %v after the fault: %s", code, took, msg)
	checkIncomplete(t, run.out, msg, 4)
	// 3 s of heartbeat timeout from the fault, and slack for a loaded
	// machine; the coordinator's exit took most of it already.
	e.waitEmptyOn(t, "node3", time.Until(fault.Add(6*time.Second)))
	e.checkClean(t, time.Second)
	linkUp()
	e.checkClean(t, time.Second)
}

// A frozen node (every process on it stopped, sshd included) answers
// nothing: the coordinator fails the job at the heartbeat timeout naming
// it (see wantSilence). Its files, in a directory only it sees, outlive the coordinator;
// once thawed, its rank finds the coordinator gone and removes them.
//
// The run only reads, so its files, made once before the first phase,
// are there whenever the freeze strikes. (With write phases each one's
// preparation removes them first; once a phase waited only ~20 ms for
// its release, a freeze right after the files appeared could land in
// that gap, and node2 held none.)
func TestFrozenNodeMidPhase(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	e.privateDir(t, "node2")
	run := e.startFault(t, "node2", "--phases", "read")
	fault := time.Now()
	if err := e.c.Freeze("node2"); err != nil {
		t.Fatal(err)
	}
	thaw := func() {
		if err := e.c.Thaw("node2"); err != nil {
			t.Error(err)
		}
	}
	defer thaw()
	code, took := waitFault(t, run.cmd, fault, bound)
	msg := finalError(t, run.stderr.String(), "host node2 rank 1")
	wantSilence(t, msg)
	if code != 1 {
		t.Errorf("exit %d after %v, want 1", code, took)
	}
	t.Logf("exit %d %v after the fault: %s", code, took, msg)
	checkIncomplete(t, run.out, msg, 4)
	// The other nodes are clean already; node2's file waits for its rank.
	if left := harness.DirEntries(t, e.dir); len(left) != 0 {
		t.Errorf("left in %s while node2 is frozen: %v", e.dir, left)
	}
	if files := e.filesOn(t, "node2"); len(files) != 1 {
		t.Errorf("files node2 sees while frozen: %v, want its thread's one", files)
	}
	thaw()
	e.waitEmptyOn(t, "node2", 5*time.Second)
	e.checkClean(t, time.Second)
}

// wantSilence checks that msg tells the node's silence at the heartbeat
// timeout (3 s) the way the coordinator met it: in a phase, no heartbeat;
// between two phases (the run's phases last ~10 ms, with ~20 ms between
// them), no answer to the clock probe that precedes each phase.
func wantSilence(t *testing.T, msg string) {
	t.Helper()
	if !strings.Contains(msg, "silent for more than 3s") && !strings.Contains(msg, "no clock probe reply within 3s") {
		t.Errorf("error line tells no silence at the 3 s heartbeat timeout: %s", msg)
	}
}
