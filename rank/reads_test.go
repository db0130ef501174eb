package rank

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"ioswarm/clock"
	"ioswarm/wire"
)

// Each read phase's prepare may name other sources: the threads then
// read those files, and a later prepare can move them again or back.
func TestPrepareMovesTheReadSources(t *testing.T) {
	_, req := testState(t, 0, 1)
	run := func(phase wire.Phase) wire.RunReply {
		t.Helper()
		at := clock.Now() + int64(10*time.Millisecond)
		return runReply(t, req(wire.KindRun, wire.Run{Phase: phase, Iteration: 1, ReleaseAt: at}))
	}
	req(wire.KindPrepare, wire.Prepare{Phase: wire.Write})
	run(wire.Write)
	for _, c := range []struct {
		phase   wire.Phase
		sources []int
		want    []string
	}{
		{wire.Read, []int{1, 0}, []string{"t1.dat", "t0.dat"}},
		{wire.Reread, nil, []string{"t1.dat", "t0.dat"}}, // none given: as before
		{wire.RandRead, []int{0, 1}, []string{"t0.dat", "t1.dat"}},
	} {
		req(wire.KindPrepare, wire.Prepare{Phase: c.phase, Sources: c.sources})
		r := run(c.phase)
		for i, tr := range r.Threads {
			if filepath.Base(tr.File) != c.want[i] {
				t.Errorf("%s with sources %v: thread %d read %s, want %s", c.phase, c.sources, tr.Thread, tr.File, c.want[i])
			}
		}
	}
}

// The marker steps on one rank: made, seen with its token only, removed.
func TestMarkerStepsOnARank(t *testing.T) {
	_, req := testState(t, 0)
	look := func(token string) bool {
		t.Helper()
		var r wire.MarkerReply
		if err := json.Unmarshal(req(wire.KindMarker, wire.Marker{Step: wire.MarkerLook, Token: token}), &r); err != nil {
			t.Fatal(err)
		}
		return r.Seen
	}
	if look("tok") {
		t.Error("seen before it was made")
	}
	req(wire.KindMarker, wire.Marker{Step: wire.MarkerMake, Token: "tok"})
	if !look("tok") || look("other") {
		t.Error("the marker is not seen with its token alone")
	}
	req(wire.KindMarker, wire.Marker{Step: wire.MarkerRemove})
	if look("tok") {
		t.Error("seen after its removal")
	}
}
