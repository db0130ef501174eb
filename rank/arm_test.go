package rank

import (
	"bytes"
	"testing"
	"time"

	"ioswarm/clock"
	"ioswarm/wire"
)

// Preparing a phase fills its buffers, so the run request finds them
// ready; the run takes them, and a run of a phase not prepared last
// makes its own.
func TestPreparedPhaseIsArmed(t *testing.T) {
	s, req := testState(t, 0, 1)
	req(wire.KindPrepare, wire.Prepare{Phase: "write"})
	a := s.armed
	if a == nil || a.phase != "write" || len(a.bufs) != len(s.workers) {
		t.Fatalf("after preparing write: armed %+v, want the write's %d buffers", a, len(s.workers))
	}
	for i, w := range s.workers {
		want := make([]byte, len(a.bufs[i]))
		w.pat.fill(want, 0)
		if !bytes.Equal(a.bufs[i], want) {
			t.Errorf("thread %d: the armed buffer does not hold its pattern", w.thread)
		}
	}
	runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: 1, ReleaseAt: clock.Now()}))
	if s.armed != nil {
		t.Fatalf("the run left %q armed", s.armed.phase)
	}

	req(wire.KindPrepare, wire.Prepare{Phase: "read"})
	req(wire.KindPrepare, wire.Prepare{Phase: "randread"})
	if s.armed == nil || s.armed.phase != "randread" {
		t.Fatalf("a second preparation left %+v armed, want randread", s.armed)
	}
	// Not the phase armed: the run makes its own memory and still reads
	// the whole files.
	r := runReply(t, req(wire.KindRun, wire.Run{Phase: "read", Iteration: 1, ReleaseAt: clock.Now()}))
	if s.armed != nil {
		t.Fatalf("the read left %q armed", s.armed.phase)
	}
	for _, tr := range r.Threads {
		if tr.Bytes != 16<<10 {
			t.Errorf("read without its own preparation: record %+v", tr)
		}
	}
}

// ReadyAt is when the last thread began to wait: before a release set far
// enough ahead, after one already past.
func TestRunReplySaysWhenThreadsWereReady(t *testing.T) {
	_, req := testState(t, 0, 1, 2)
	req(wire.KindPrepare, wire.Prepare{Phase: "write"})
	sent := clock.Now()
	at := sent + int64(30*time.Millisecond)
	r := runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: 1, ReleaseAt: at}))
	if r.ReadyAt < sent || r.ReadyAt > at {
		t.Fatalf("ready at %+d ns from the request, release at %+d", r.ReadyAt-sent, at-sent)
	}
	req(wire.KindPrepare, wire.Prepare{Phase: "read"})
	past := clock.Now() - int64(10*time.Millisecond)
	r = runReply(t, req(wire.KindRun, wire.Run{Phase: "read", Iteration: 1, ReleaseAt: past}))
	if r.ReadyAt <= past {
		t.Fatalf("a release 10 ms in the past: ready %d ns before it", past-r.ReadyAt)
	}
}
