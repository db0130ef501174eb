package rank

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"ioswarm/barrier"
	"ioswarm/clock"
	"ioswarm/wire"
)

// firstStop is IOzone's stonewall, carried live (wire.Run.FirstDoneStop).
// In IOzone's throughput mode the first child to complete its last record
// raises a stop flag, before its own fsync and close; every other child
// sees it at its next record boundary, fsyncs (-e) and closes (-c) its
// partial file inside its own time, and takes that as its time and the
// records it had completed as its xfer count (a record that completed
// while the flag was up is not counted). Children on other -+m clients
// hear of it through the master. Here a rank's threads share one
// firstStop; the rank tells the coordinator, which relays the word to
// every rank (barrier's Config.Relay), whose threads see it the same way.
type firstStop struct {
	raised atomic.Bool
	// up is closed when a thread of this rank raises the stop, for the
	// goroutine that tells the other ranks (tellStop): the thread itself
	// goes on at once to its fsync and close.
	up chan struct{}
}

func newFirstStop() *firstStop { return &firstStop{up: make(chan struct{})} }

// raise is a thread's after its last record; it reports whether this
// thread raised the stop, false when it was up already.
func (f *firstStop) raise() bool {
	if !f.raised.CompareAndSwap(false, true) {
		return false
	}
	close(f.up)
	return true
}

// heard raises the stop on another rank's word.
func (f *firstStop) heard() { f.raised.Store(true) }

// firstSeen is where the stop found a thread: IOzone's xfer count.
type firstSeen struct {
	ok         bool
	bytes, ops int64
}

// stopBefore is the check at a record boundary, before the next record:
// once the stop is up the thread's timed part ends with what it has done.
func (w *worker) stopBefore(p *phaseParams, bytes, ops int64) bool {
	if p.first == nil || !p.first.raised.Load() {
		return false
	}
	w.seen = firstSeen{ok: true, bytes: bytes, ops: ops}
	return true
}

// stopAfter is the check after a timed record completed (bytes and ops
// count it; more says whether records are left). A thread that completed
// its last record raises the stop, unless another has, and goes on to its
// fsync and close. A record that completed under a raised stop ends the
// timed part, and is not counted in IOzone's xfer.
func (w *worker) stopAfter(p *phaseParams, bytes, ops, opBytes int64, more bool) bool {
	if p.first == nil {
		return false
	}
	if !more {
		// Read before the raise, so that no thread can see the stop
		// before the moment recorded for it.
		now := clock.Now()
		if p.first.raise() {
			w.rec.RaisedStopNS = now
			return false
		}
	}
	if !p.first.raised.Load() {
		return false
	}
	w.seen = firstSeen{ok: true, bytes: bytes - opBytes, ops: ops - 1}
	return true
}

// endTimed ends the thread's timed part at now, after its close, with
// bytes and ops done, and with the live stop records IOzone's account:
// what the stop found done and this same end (a thread that raised the
// stop, or finished before one reached it: all of it).
func (w *worker) endTimed(p *phaseParams, now, bytes, ops int64) {
	if p.first == nil {
		w.timedEnd(now, bytes, ops, false)
		return
	}
	w.timedEnd(now, bytes, ops, w.seen.ok)
	w.rec.StonewallEndNS = w.rec.EndNS
	w.rec.StonewallBytes, w.rec.StonewallOps = w.rec.Bytes, w.rec.Ops
	if w.seen.ok {
		w.rec.StonewallBytes, w.rec.StonewallOps = w.seen.bytes, w.seen.ops
	}
}

// stopBoard is where a rank's relayed stops meet its phase runs. A stop
// may arrive before the run it is for has begun here (the run request
// reached this rank late): it is kept until then.
type stopBoard struct {
	mu    sync.Mutex
	run   wire.Stop  // the run under way
	cur   *firstStop // its stop; nil between runs
	early []wire.Stop
}

// maxEarlyStops bounds the stops kept for runs not yet begun; a run's
// stop comes only after its release, so one is the most a job needs.
const maxEarlyStops = 8

// begin makes f the stop of run, raised at once if its word came first.
func (b *stopBoard) begin(run wire.Stop, f *firstStop) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.run, b.cur = run, f
	for _, e := range b.early {
		if e == run {
			f.heard()
		}
	}
	b.early = b.early[:0]
}

func (b *stopBoard) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cur = nil
}

// hear takes a relayed stop.
func (b *stopBoard) hear(s wire.Stop) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur != nil && b.run == s {
		b.cur.heard()
		return
	}
	if len(b.early) == maxEarlyStops {
		b.early = b.early[1:]
	}
	b.early = append(b.early, s)
}

// hearStops feeds the stops the coordinator relays to the board until the
// session ends.
func (s *state) hearStops(relayed <-chan barrier.Note) {
	for n := range relayed {
		if n.Kind != wire.KindStop {
			continue
		}
		var st wire.Stop
		if json.Unmarshal(n.Body, &st) == nil {
			s.stops.hear(st)
		}
	}
}

// tellStop tells the coordinator, and through it every rank, when a
// thread of this rank raises f, unless the run ends first.
func (s *state) tellStop(run wire.Stop, f *firstStop, finished <-chan struct{}) {
	select {
	case <-f.up:
		if s.member != nil {
			// Best effort: a lost word leaves the other ranks' threads
			// to finish their files, timed, as with -x.
			_ = s.member.Notify(wire.KindStop, run)
		}
	case <-finished:
	}
}
