package settings

import "testing"

// Each phase's kind, as the engine, the reductions and the charts ask it.
func TestPhaseKinds(t *testing.T) {
	for _, c := range []struct {
		p                                       Phase
		random, meta, ops, read, seqRead, write bool
	}{
		{Write, false, false, false, false, false, true},
		{Rewrite, false, false, false, false, false, true},
		{Read, false, false, false, true, true, false},
		{Reread, false, false, false, true, true, false},
		{RandWrite, true, false, true, false, false, true},
		{RandRead, true, false, true, true, false, false},
		{MDCreate, false, true, true, false, false, false},
		{MDStat, false, true, true, false, false, false},
		{MDRead, false, true, true, false, false, false},
		{MDDelete, false, true, true, false, false, false},
	} {
		got := [6]bool{c.p.IsRandom(), c.p.IsMeta(), c.p.CountsOps(), c.p.IsRead(), c.p.IsSeqRead(), c.p.IsWrite()}
		want := [6]bool{c.random, c.meta, c.ops, c.read, c.seqRead, c.write}
		if got != want {
			t.Errorf("%s: random, meta, ops, read, seq read, write = %v, want %v", c.p, got, want)
		}
	}
	if len(Phases) != 10 || len(MDPhases) != 4 {
		t.Errorf("%d phases, %d metadata phases", len(Phases), len(MDPhases))
	}
}
