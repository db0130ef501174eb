package rank

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"ioswarm/clock"
	"ioswarm/wire"
)

// gcSettings reads the collector's percent and memory limit without
// changing them.
func gcSettings() (percent int64, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), s[1].Value.Uint64()
}

// From a phase's arming to its end the collector is off (its timed calls
// are raw: a stop of the world would wait for the slowest in flight), with
// a memory limit as the backstop; allocating well past the usual trigger
// starts no collection; the run, and a preparation never run, give the
// settings back.
func TestArmedPhaseHoldsTheCollectorOff(t *testing.T) {
	percent, limit := gcSettings()
	s, req := testState(t, 0, 1)
	req(wire.KindPrepare, wire.Prepare{Phase: "write"})
	p, l := gcSettings()
	if p > 0 || l >= limit { // an off collector reads as 0 or -1 by version
		t.Fatalf("armed: GOGC %d, memory limit %d; want the collector off under a limit below %d", p, l, limit)
	}
	// The limit is a backstop only: what a phase keeps live (a random
	// phase's latency per second, tens of KiB a second; before
	// latencyStore, 58 KiB a thread and second, 0.5 GiB for 32 threads over
	// 5 minutes) must fit far under it, or the collector would run again
	// and again against it.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if room := int64(l) - int64(ms.Sys-ms.HeapReleased); room < 512<<20 {
		t.Errorf("armed: the limit leaves %d MiB of room, want 512 MiB at least", room>>20)
	}
	before := ms.NumGC
	var keep [][]byte
	for range 64 {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB, 16 times the smallest trigger
	}
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	if ms.NumGC != before {
		t.Errorf("%d collections while the phase was armed", ms.NumGC-before)
	}
	runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: 1, ReleaseAt: clock.Now()}))
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after the run: GOGC %d, limit %d; want %d, %d back", p, l, percent, limit)
	}
	req(wire.KindPrepare, wire.Prepare{Phase: "read"})
	s.disarm()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after a preparation not run: GOGC %d, limit %d; want %d, %d back", p, l, percent, limit)
	}
}
