package sshlaunch

import (
	"context"
	"net"
	"sync"
	"time"

	"ioswarm/binserve"
	"ioswarm/launcher"
)

// Copies spread like a tree. The coordinator serves its binary over a
// plain TCP stream (binserve) and so does every node once it holds a
// verified copy; a node that needs a copy fetches it from a server with a
// free slot. Each fetch adds a server, so the servers double (and more)
// with every round of copies: N nodes get their copies in about log N
// rounds, and the coordinator's link carries a few copies instead of N.
// SSH starts stay where they were, at most Fanout at a time from the
// coordinator: a site needs no node-to-node SSH, only that nodes reach
// the coordinator's address (as ranks must anyway) and each other on
// ephemeral TCP ports, and that nodes have bash and coreutils' timeout.
// Where a fetch fails for any reason, that node gets its copy over SSH as
// before, and the server it tried is used no more; when the first fetches
// between nodes all fail (nodes cannot reach each other), nodes stop
// serving and only the coordinator does.

// Slots per server: how many copies one sends at once. The coordinator's
// few slots keep its own link's share small; a node's two let the tree
// grow by three times each round (the node and the two it served).
const (
	rootSlots = 4
	nodeSlots = 2
)

// copySource is one server of the binary.
type copySource struct {
	name  string // "the coordinator" or the node's name
	host  string // the address nodes dial; "" for the coordinator (see hostFor)
	port  int
	busy  int
	slots int
	node  bool
}

// hostFor is the address c's node dials to reach s: the coordinator is
// reached at its own end of that node's connection (or --advertise), as
// ranks reach it, since it may have one address per network.
func (s *copySource) hostFor(c *sshConn, advertise string) string {
	if s.host != "" {
		return s.host
	}
	if advertise != "" {
		return advertise
	}
	if a, ok := c.local.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ""
}

// serverKind is how fetches from one kind of server (the coordinator, or
// nodes) went: whether one has worked, how many failed, and how many
// copies the kind sent.
type serverKind struct {
	worked         bool
	failed, served int
}

// ruledOut says whether nodes cannot reach this kind of server at all (a
// firewall): two failures and no success. It serves no more, and nobody
// waits on it again.
func (k *serverKind) ruledOut() bool { return !k.worked && k.failed >= 2 }

// kindOf is the record of s's kind; t.mu is held.
func (t *copyTree) kindOf(s *copySource) *serverKind {
	if s.node {
		return &t.fromNodes
	}
	return &t.fromRoot
}

// copyTree is the servers of one Prepare.
type copyTree struct {
	path, host string // what the coordinator serves, and where it listens
	log        *launcher.LineWriter

	mu                  sync.Mutex
	sources             []*copySource
	changed             chan struct{} // closed and replaced whenever a slot frees or a server joins
	fromRoot, fromNodes serverKind    // how fetches from the coordinator and from nodes went
	closers             []func()
	untried             time.Duration // a fetch's limit until its kind has worked (untriedTimeout)
	// unplaced counts the nodes not yet through placement, and promised
	// the fetches under way that will serve: together with the free slots
	// they say whether one more server would be used (see serveNext).
	unplaced, promised int
	started            bool // the coordinator's server was tried (see startRoot)
	closed             bool // close has run: a server added later is ended at once
	root               *binserve.Server
	stop               context.CancelFunc
	token              string
}

// newCopyTree makes the tree of one Prepare of nodes nodes, whose
// coordinator's server will serve path on host (all addresses when "";
// --listen's host when given, where ranks reach the coordinator). It
// returns nil when there can be no tree: every copy then goes over SSH.
func newCopyTree(path, host string, log *launcher.LineWriter, nodes int) *copyTree {
	token, err := binserve.NewToken()
	if err != nil {
		log.Printf("warning: %v; copies go over SSH\n", err)
		return nil
	}
	return &copyTree{path: path, host: host, log: log, token: token, changed: make(chan struct{}), untried: untriedTimeout,
		unplaced: nodes}
}

// startRoot starts the coordinator's server when the first node needs a
// copy, so a warm launch opens no port; t.mu is held. A server that
// cannot listen leaves the tree without sources: copies go over SSH.
func (t *copyTree) startRoot() {
	if t.started {
		return
	}
	t.started = true
	ctx, cancel := context.WithCancel(context.Background())
	s := &binserve.Server{Path: t.path, Token: t.token}
	if err := s.Listen(ctx, net.JoinHostPort(t.host, "0")); err != nil {
		cancel()
		t.log.Printf("warning: %v; copies go over SSH\n", err)
		return
	}
	t.root, t.stop = s, cancel
	t.add(&copySource{name: "the coordinator", port: s.Port(), slots: rootSlots})
}

// add puts a server in the tree; t.mu is held.
func (t *copyTree) add(s *copySource) {
	t.sources = append(t.sources, s)
	t.wake()
}

// wake tells waiting fetches that the tree changed; t.mu is held.
func (t *copyTree) wake() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// acquire returns the best server with a free slot (see better), waiting
// while all are busy; nil when there is none left to wait for.
func (t *copyTree) acquire(ctx context.Context) (*copySource, error) {
	for {
		t.mu.Lock()
		t.startRoot()
		if len(t.sources) == 0 {
			t.mu.Unlock()
			return nil, nil
		}
		var best *copySource
		for _, s := range t.sources {
			if s.busy < s.slots && (best == nil || better(s, best)) {
				best = s
			}
		}
		if best != nil {
			best.busy++
			t.mu.Unlock()
			return best, nil
		}
		changed := t.changed
		t.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// better says whether a is a better server to fetch from than b: a node
// before the coordinator (whose link is the one a tree spares), then the
// one with more free slots.
func better(a, b *copySource) bool {
	if a.node != b.node {
		return a.node
	}
	return a.slots-a.busy > b.slots-b.busy
}

// release gives s's slot back. A node's server that a fetch failed from
// is dropped; so is every server of a kind that never worked twice over.
func (t *copyTree) release(s *copySource, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.busy--
	defer t.wake()
	if ok {
		k := t.kindOf(s)
		k.worked = true
		k.served++
		return
	}
	k := t.kindOf(s)
	k.failed++
	dead := func(x *copySource) bool {
		return x == s && s.node || x.node == s.node && k.ruledOut()
	}
	kept := t.sources[:0]
	for _, x := range t.sources {
		if !dead(x) {
			kept = append(kept, x)
		}
	}
	t.sources = kept
}

// giveBack returns s's slot unused.
func (t *copyTree) giveBack(s *copySource) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.busy--
	t.wake()
}

// counts are the copies the coordinator and the nodes served.
func (t *copyTree) counts() (root, nodes int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fromRoot.served, t.fromNodes.served
}

// limit is how long a fetch from s may take: less while no fetch from
// its kind has worked yet.
func (t *copyTree) limit(s *copySource) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.kindOf(s).worked {
		return fetchTimeout
	}
	return min(t.untried, fetchTimeout)
}

// close stops every server of the tree, the coordinator's and the nodes',
// and returns once their sessions have ended.
func (t *copyTree) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	closers := t.closers
	t.closers, t.closed = nil, true
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, end := range closers {
		wg.Add(1)
		go func() { defer wg.Done(); end() }()
	}
	wg.Wait()
	t.mu.Lock()
	t.started = true // a fetch still on its way finds no new server
	root, stop := t.root, t.stop
	t.mu.Unlock()
	if root != nil {
		stop()
		root.Wait()
	}
}
