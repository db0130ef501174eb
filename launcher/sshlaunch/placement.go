package sshlaunch

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// nodeState is where the placement of one node (a group of targets that
// log in to the same place) stands. It only moves forward:
//
//	connecting → probing ──────────────────────────→ placed → running
//	               │ └→ running (quick start: the stamped copy ran)
//	               ├→ fetching ─→ serving ─→ placed
//	               │     └───────────┴──────→ copying → placed
//	               └→ copying ────────────────────→ placed
//
// and from any state but failed to failed. Probing includes waiting for
// another node's copy into a shared home and probing again; serving means
// the node's copy is offered to other nodes (its fetch session became a
// server, or its held rank will be asked to serve). Prepare without a spec
// ends at placed.
type nodeState int

const (
	connecting nodeState = iota // dialling the node's connections
	probing                     // finding what the node holds (quick start or probe)
	fetching                    // taking this build from a copy tree server
	copying                     // sending this build over SSH
	serving                     // placed, and the node serves its copy to others
	placed                      // every target's binary known and in place
	running                     // the group's ranks started (or starting)
	failed                      // the placement ended in an error
)

func (s nodeState) String() string {
	return [...]string{"connecting", "probing", "fetching", "copying over SSH", "serving", "placed", "running",
		"failed"}[s]
}

// mayEnter says whether a placement in s may move to n.
func (s nodeState) mayEnter(n nodeState) bool {
	switch n {
	case failed:
		return s != failed
	case probing:
		return s == connecting
	case fetching:
		return s == probing
	case copying:
		return s == probing || s == fetching || s == serving
	case serving:
		return s == fetching
	case placed:
		return s == probing || s == copying || s == serving || s == fetching
	case running:
		return s == probing || s == placed
	}
	return false
}

// placement is one node's way through Prepare: its connections, the
// quick start's session held while the binary is placed, each target's
// binary path, and the ranks started.
type placement struct {
	l     *SSH
	g     []launcher.Target
	st    *placeStats
	spec  launcher.RankSpec // nil: Prepare, no ranks started
	state nodeState
	trail []nodeState // every state entered, in order
	conns []*sshConn  // (len(g)+ranksPerConn-1)/ranksPerConn of them
	held  *heldProbe  // the quick start's session that probed: it starts the first rank
	exes  []string    // per target, once placed
	procs []*sshProc  // started, in the order of g
}

// enter moves p to state n; a move the diagram does not allow is a bug.
func (p *placement) enter(n nodeState) {
	if p.state == n {
		return
	}
	if !p.state.mayEnter(n) {
		panic(fmt.Sprintf("ssh placement of %s: %v cannot become %v", p.g[0].Host, p.state, n))
	}
	p.state = n
	p.trail = append(p.trail, n)
}

// groupTargets gathers the targets that log in to the same place, in host
// order: they share connections and one placement of the binary.
func groupTargets(targets []launcher.Target) [][]launcher.Target {
	index := map[string]int{}
	var groups [][]launcher.Target
	for _, t := range targets {
		key := fmt.Sprintf("%s@%s:%d", t.User, t.Host, t.Port)
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], t)
	}
	return groups
}

// prepareAll readies the groups in parallel, at most Fanout at a time,
// and returns the ranks started and the failures sorted by rank.
func (l *SSH) prepareAll(ctx context.Context, groups [][]launcher.Target, st *placeStats, spec launcher.RankSpec) (map[int]*sshProc, launcher.HostErrors) {
	var herrs launcher.HostErrors
	started := map[int]*sshProc{}
	var mu sync.Mutex
	sem := make(chan struct{}, max(l.Fanout, 1))
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			var procs []*sshProc
			select {
			case sem <- struct{}{}:
				procs, err = l.prepareGroup(ctx, g, st, spec)
				st.tree.placed()
				<-sem
			case <-ctx.Done():
				err = context.Cause(ctx)
			}
			mu.Lock()
			defer mu.Unlock()
			for i, p := range procs {
				started[g[i].Rank] = p
			}
			if err == nil {
				return
			}
			st.failed.Add(1)
			for _, t := range g {
				herrs = append(herrs, &launcher.HostError{Host: t.Host, Rank: t.Rank, Err: err})
			}
		}()
	}
	wg.Wait()
	sort.Slice(herrs, func(i, j int) bool { return herrs[i].Rank < herrs[j].Rank })
	return started, herrs
}

// prepareGroup connects to one node (more connections when it runs many
// ranks), places the binary and records where each of its ranks runs.
// With spec, it then starts the group's ranks and returns them: where the
// node holds a verified copy, the first rank starts in the session that
// finds it (quickStart).
func (l *SSH) prepareGroup(ctx context.Context, g []launcher.Target, st *placeStats, spec launcher.RankSpec) ([]*sshProc, error) {
	p := l.newPlacement(g, st, spec)
	err := p.run(ctx)
	if err != nil {
		p.enter(failed)
	}
	return p.procs, err
}

func (l *SSH) newPlacement(g []launcher.Target, st *placeStats, spec launcher.RankSpec) *placement {
	return &placement{l: l, g: g, st: st, spec: spec, trail: []nodeState{connecting}}
}

// run takes p from connecting to placed (without a spec) or running.
func (p *placement) run(ctx context.Context) error {
	defer p.dropHeld()
	if err := p.connect(ctx); err != nil {
		return err
	}
	p.enter(probing)
	if p.spec != nil && p.l.placesCachedOnly(p.g) {
		if err := p.quickStart(ctx); err != nil {
			return err
		}
	}
	if p.state == probing {
		if err := p.place(ctx); err != nil {
			return err
		}
	}
	if err := p.startHeld(ctx); err != nil {
		return err
	}
	p.record()
	if p.spec == nil {
		return nil
	}
	return p.startRest(ctx)
}

// connect dials the group's connections.
func (p *placement) connect(ctx context.Context) error {
	l, t0 := p.l, p.g[0]
	rt, err := l.res.route(t0.Host, t0.User, t0.Port)
	if err != nil {
		return err
	}
	p.conns = make([]*sshConn, (len(p.g)+ranksPerConn-1)/ranksPerConn)
	for i := range p.conns {
		c, err := l.dial(ctx, t0.Host, rt)
		if err != nil {
			return err
		}
		if err := l.track(c); err != nil {
			return err
		}
		p.conns[i] = c
	}
	return nil
}

// startedFromCache records the first rank, which quick.sh started from
// the node's verified cached copy in home: every target runs that copy.
func (p *placement) startedFromCache(rank *sshProc, home string) {
	p.addRank(rank)
	p.st.cached.Add(1)
	p.exes = slices.Repeat([]string{rankproto.CachedExe(home, p.l.build.hash)}, len(p.g))
}

// addRank records a started rank for Close and for the caller.
func (p *placement) addRank(rank *sshProc) {
	p.l.trackProc(rank)
	p.procs = append(p.procs, rank)
	p.enter(running)
}

// startHeld starts the first rank in the quick start's held session,
// unless a fetch in it failed and closed it: the rank then takes a
// session of its own (startRest).
func (p *placement) startHeld(ctx context.Context) error {
	h := p.held
	p.held = nil
	if !h.alive() {
		return nil
	}
	rank, err := h.start(ctx)
	if err != nil {
		return err
	}
	p.addRank(rank)
	return nil
}

// dropHeld closes a held session no rank was started in.
func (p *placement) dropHeld() {
	if p.held != nil {
		p.held.close()
		p.held = nil
	}
}

// record tells the launcher where each of the group's ranks runs.
func (p *placement) record() {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	for i, t := range p.g {
		p.l.nodes[t.Rank] = &sshNode{conn: p.conns[i/ranksPerConn], exe: p.exes[i]}
	}
}

// startRest starts the group's ranks not yet started, each in a session
// of its own.
func (p *placement) startRest(ctx context.Context) error {
	l := p.l
	for i := len(p.procs); i < len(p.g); i++ {
		c := p.conns[i/ranksPerConn]
		args, stdin := p.spec(p.g[i], l.addressOf(c))
		rank, err := startRank(c, p.g[i], p.exes[i], args, stdin, l.Log, l.Grace)
		if err != nil {
			return fmt.Errorf("start %s: %w", p.exes[i], err)
		}
		p.addRank(rank)
	}
	return nil
}
