package rank

import (
	"fmt"
	"runtime"

	"ioswarm/wire"
)

// armedPhase is a phase's memory: every worker's buffer, filled with its
// pattern, and its ring. It is made when the phase is prepared, before the
// coordinator sets the release, so that the time between the run request
// and the release need only cover the request's way to the nodes, not a
// node filling its threads' buffers (16 MiB a thread, 512 MiB for 32
// threads: longer than the release's lead on a loaded node, whose threads
// then started late).
type armedPhase struct {
	phase      wire.Phase
	bufs       [][]byte
	closeRings func()
	gc         gcHold // the collector's settings before; it is off until free
}

// arm makes phase's memory ready for its run request. The preparation
// has disarmed whatever an earlier one armed and no run used.
func (s *state) arm(phase wire.Phase) error {
	a, err := s.armFor(s.params(wire.Run{Phase: phase}))
	if err != nil {
		return err
	}
	s.armed = a
	return nil
}

// armFor makes the buffers and rings p needs.
func (s *state) armFor(p *phaseParams) (*armedPhase, error) {
	if err := s.mem.admit(armBytes(p, len(s.workers)), fmt.Sprintf("%s's buffers for %d threads", p.name, len(s.workers))); err != nil {
		return nil, err
	}
	bufs, err := s.prepare(p)
	if err != nil {
		return nil, err
	}
	closeRings, err := s.prepareUring(p)
	if err != nil {
		freeBuffers(bufs)
		return nil, err
	}
	// A collection during the release would stop every worker and hand
	// each its thread back in turn (futex by futex): the 6-16 ms start
	// skews seen in about one run in six. Collect now, while nothing
	// waits, so that the phase, which allocates nothing, starts none.
	// What comes between this and the release (the cache drop's reply,
	// clock probes, the run request) allocates a few KiB, far from the
	// next collection's trigger. Collecting on the run request instead
	// put the collection inside the release lead: on 64 nodes sharing two
	// cores, ranks were then ready 0.4-1.7 s after the request, against
	// about 20 ms when they collect here.
	// And then hold the next one off until the phase is over: its
	// timed calls are raw (see rawcall.go), and a collection's stop of
	// the world would wait for the slowest of them.
	a := &armedPhase{phase: p.name, bufs: bufs, closeRings: closeRings}
	if len(s.workers) == 0 {
		// A rank with no thread in this job (a sweep keeps every rank
		// for its smaller points) has no phase to shield, and 200 idle
		// ranks collecting at every preparation cost a 200-node sweep on
		// the test bed ~0.35 s per phase.
		return a, nil
	}
	runtime.GC()
	a.gc = holdGC()
	return a, nil
}

// takeArmed hands the run of phase the memory armed for it, or nil when
// none was (a run request with no preparation before it); memory armed
// for another phase is freed.
func (s *state) takeArmed(phase wire.Phase) *armedPhase {
	a := s.armed
	s.armed = nil
	if a != nil && a.phase != phase {
		a.free()
		a = nil
	}
	return a
}

// disarm frees what was armed and not run.
func (s *state) disarm() {
	if s.armed != nil {
		s.armed.free()
		s.armed = nil
	}
}

func (a *armedPhase) free() {
	a.closeRings()
	freeBuffers(a.bufs)
	a.gc.release()
}
