package sshlaunch

import (
	"context"
	"slices"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/launcher"
)

// The moves the state diagram draws are allowed, and a few it does not
// are refused: nothing goes back, and a failed placement stays failed.
func TestNodeStateMoves(t *testing.T) {
	allowed := [][2]nodeState{
		{connecting, probing}, {probing, running}, {probing, placed}, {probing, fetching}, {probing, copying},
		{fetching, serving}, {fetching, copying}, {fetching, placed}, {serving, placed}, {serving, copying},
		{copying, placed}, {placed, running},
		{connecting, failed}, {probing, failed}, {fetching, failed}, {serving, failed}, {running, failed},
	}
	for _, m := range allowed {
		if !m[0].mayEnter(m[1]) {
			t.Errorf("%v may not become %v, but the diagram allows it", m[0], m[1])
		}
	}
	refused := [][2]nodeState{
		{connecting, running}, {connecting, placed}, {running, probing}, {placed, fetching}, {placed, copying},
		{copying, fetching}, {copying, serving}, {failed, failed}, {failed, running}, {running, placed},
	}
	for _, m := range refused {
		if m[0].mayEnter(m[1]) {
			t.Errorf("%v may become %v, which the diagram does not allow", m[0], m[1])
		}
	}
}

// placeOne runs the placement of s's one target as prepareAll would, with
// a copy tree when tree is set, and returns it.
func placeOne(t *testing.T, l *SSH, s *testServer, spec launcher.RankSpec, tree bool) *placement {
	t.Helper()
	g := []launcher.Target{sshTarget(s, 0)}
	if err := l.init(g); err != nil {
		t.Fatal(err)
	}
	st := &placeStats{}
	if tree {
		st.tree = newCopyTree(l.build.path, "", l.Log, 1)
		defer st.tree.close()
	}
	p := l.newPlacement(g, st, spec)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := p.run(ctx)
	for _, r := range p.procs {
		t.Cleanup(r.Stop)
	}
	if err != nil {
		t.Fatalf("placement: %v (states %v)", err, p.trail)
	}
	return p
}

func wantTrail(t *testing.T, what string, p *placement, want ...nodeState) {
	t.Helper()
	if !slices.Equal(p.trail, want) {
		t.Errorf("%s went through %v, want %v", what, p.trail, want)
	}
}

// Each way a node gets its binary is a path of states: a cold node copied
// to over SSH, then the same node warm (its rank started by the quick
// start), and a cold node that streams its copy in the quick start's
// held session before its rank starts there.
func TestPlacementStatesSayHowTheNodeWasPlaced(t *testing.T) {
	spec := func(launcher.Target, string) ([]string, []byte) { return []string{"--job", "p"}, []byte("c0ffee\n") }
	s := newTestServer(t)
	bin := writeFakeRank(t)
	l := testSSH(t, s, bin, &testio.LockedBuffer{})
	wantTrail(t, "a cold Prepare over SSH", placeOne(t, l, s, nil, false), connecting, probing, copying, placed)
	warm := placeOne(t, l, s, spec, false)
	wantTrail(t, "a warm start", warm, connecting, probing, running)
	if len(warm.procs) != 1 || len(warm.exes) != 1 {
		t.Errorf("a warm start gave %d ranks and %d paths, want 1 and 1", len(warm.procs), len(warm.exes))
	}

	needsStreamTools(t)
	cold := newTestServer(t)
	lt := testSSH(t, cold, bin, &testio.LockedBuffer{})
	lt.Tree = true
	p := placeOne(t, lt, cold, spec, true)
	wantTrail(t, "a cold start from the tree", p, connecting, probing, fetching, placed, running)
	if fetches(cold) != 0 || copies(cold) != 0 || len(cold.seen()) != 1 {
		t.Errorf("the held session did not do it all: %d sessions (%q)", len(cold.seen()), cold.seen())
	}
}
