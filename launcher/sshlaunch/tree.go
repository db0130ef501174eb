package sshlaunch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/binserve"
	"ioswarm/launcher"
	"ioswarm/rankproto"
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

// copyTree is the servers of one Prepare.
type copyTree struct {
	path, host string // what the coordinator serves, and where it listens
	log        *launcher.LineWriter

	mu      sync.Mutex
	sources []*copySource
	changed chan struct{} // closed and replaced whenever a slot frees or a server joins
	// Per kind of server (false: the coordinator, true: nodes): whether a
	// fetch from one has worked, and how many failed before one did. Two
	// failures and no success mean nodes cannot reach that kind at all
	// (a firewall): it serves no more, and nobody waits on it again.
	worked  map[bool]bool
	failed  map[bool]int
	served  map[bool]int // copies each kind sent
	closers []func()
	untried time.Duration // a fetch's limit until its kind has worked (untriedTimeout)
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
		worked: map[bool]bool{}, failed: map[bool]int{}, served: map[bool]int{}, unplaced: nodes}
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
		t.worked[s.node] = true
		t.served[s.node]++
		return
	}
	t.failed[s.node]++
	dead := func(x *copySource) bool {
		return x == s && s.node || x.node == s.node && !t.worked[s.node] && t.failed[s.node] >= 2
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
	return t.served[false], t.served[true]
}

// servingLocked says whether nodes should start servers: not once
// fetches between nodes have failed and none worked; t.mu is held.
func (t *copyTree) servingLocked() bool { return t.worked[true] || t.failed[true] < 2 }

// serveNext says whether the node whose fetch is starting should serve
// its copy afterwards, and if so counts it as promised until endFetch: a
// node serves only while the nodes that may still want a copy outnumber
// the node slots free or promised. Nodes that have not been probed yet
// count as wanting one, so this errs towards serving. A server costs its
// node a session and a process where it has no rank to serve from, and a
// slot of the rank's attention where it has; in a cold launch of 16
// nodes most of those that served before sent nothing.
func (t *copyTree) serveNext() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.servingLocked() {
		return false
	}
	free, fetching := 0, 0
	for _, s := range t.sources {
		fetching += s.busy
		if s.node {
			free += s.slots - s.busy
		}
	}
	if t.unplaced-fetching <= free+t.promised*nodeSlots {
		return false
	}
	t.promised++
	return true
}

// endFetch ends serveNext's promise of a fetch that has ended.
func (t *copyTree) endFetch() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.promised--
}

// placed counts a node through placement, however it went.
func (t *copyTree) placed() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unplaced--
}

// fetch has c's node take its copy from a server of the tree, and then
// serve it to others. Where the node has a quick start's session held,
// the fetch runs in it and the rank that session starts does the serving,
// so the node costs no session or process more; elsewhere a fetch session
// of its own fetches and then becomes the server. It reports false where
// the node must get its copy over SSH instead.
func (l *SSH) fetch(ctx context.Context, c *sshConn, t *copyTree, held *heldProbe) (bool, error) {
	if t == nil || len(c.jumps) > 0 {
		return false, nil // behind a jump host: reached only through SSH
	}
	s, err := t.acquire(ctx)
	if s == nil || err != nil {
		return false, err
	}
	node, _ := c.client.RemoteAddr().(*net.TCPAddr)
	serve := node != nil && t.serveNext()
	var f fetched
	inHeld := held.alive()
	if inHeld {
		f.answer, err = held.fetch(ctx, s.hostFor(c, l.Advertise), s.port, t.token, t.limit(s), l.connectTimeout(), l.build.size)
	} else {
		f, err = l.startFetch(ctx, c, s, t.token, serve, t.limit(s))
	}
	switch {
	case serve && inHeld && err == nil: // a held fetch that failed says so
		// The rank the held session starts will serve: the promise
		// lasts until it answers (heldProbe.serve).
		held.promiseServer(t, node.IP.String())
	case serve:
		// The node's server, if it started, is among the sources before
		// the promise goes (addNode below), so no count sees neither.
		defer t.endFetch()
	}
	switch {
	case err == nil:
		t.release(s, true)
		if f.port > 0 {
			t.addNode(c.name, node.IP.String(), f.port, f.end)
		}
		return true, nil
	case f.answer == rankproto.NoTools:
		t.giveBack(s) // the node's shortcoming, not the server's
	case rankproto.IsUnsafe(f.answer):
		t.giveBack(s) // the server is fine; the node's cache is not
		return false, rankproto.UnsafeCacheError(f.answer)
	default:
		t.release(s, false)
	}
	if ctx.Err() != nil {
		return false, context.Cause(ctx)
	}
	l.Log.Printf("note: host %s: no copy from %s (%s); sending it over SSH\n", c.name, s.name, fetchFailure(err, f.answer))
	return false, nil
}

// limit is how long a fetch from s may take: less while no fetch from
// its kind has worked yet.
func (t *copyTree) limit(s *copySource) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.worked[s.node] {
		return fetchTimeout
	}
	return min(t.untried, fetchTimeout)
}

// fetched is how a fetch session went: the script's first answer, and
// where the node now serves (port 0: it does not, and its session has
// ended) with what ends that.
type fetched struct {
	answer string
	port   int
	end    func()
}

// startFetch runs the fetch script from s on c's node and reads its
// answers: "placed", then with serve "serving PORT" from the server it
// became. The token goes on the session's input twice, once for the
// fetch and once for the server; the input's end stops the server.
func (l *SSH) startFetch(ctx context.Context, c *sshConn, s *copySource, token string, serve bool, limit time.Duration) (fetched, error) {
	sess, err := c.newSession(ctx)
	if err != nil {
		return fetched{}, err
	}
	var stderr cappedBuffer
	sess.Stderr = &stderr
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	if err := firstError(err1, err2); err != nil {
		sess.Close()
		return fetched{}, c.sessionError(err)
	}
	if err := sess.Start(rankproto.FetchCommand(l.build.hash, s.hostFor(c, l.Advertise), s.port, serve, limit, l.build.size)); err != nil {
		sess.Close()
		return fetched{}, c.sessionError(err)
	}
	lines := make(chan string, 2)
	go func() {
		br := bufio.NewReaderSize(out, 256)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- strings.TrimSpace(line)
		}
	}()
	// Whatever the script prints past the answers read here (a chatty
	// login shell's lines, say) is drained, so the reader above ends.
	defer func() {
		go func() {
			for range lines {
			}
		}()
	}()
	_, werr := io.WriteString(in, token+"\n"+token+"\n")
	// failed ends the session and says how it ended.
	failed := func(answer string, cause error) (fetched, error) {
		in.Close()
		err := c.exitError(endSession(sess))
		if err == nil {
			err = cause
		}
		if err == nil { // the script ended well, with an answer that is not a copy
			err = fmt.Errorf("answer %q", answer)
		}
		return fetched{answer: answer}, fmt.Errorf("%v%s", err, stderrTail(stderr.String()))
	}
	if werr != nil {
		return failed("", c.sessionError(werr))
	}
	timeout := time.NewTimer(limit + l.connectTimeout())
	defer timeout.Stop()
	next := func() (string, error) {
		select {
		case line, ok := <-lines:
			if !ok {
				return "", errors.New("the script ended without an answer")
			}
			return line, nil
		case <-timeout.C:
			return "", fmt.Errorf("no answer within %v", limit+l.connectTimeout())
		case <-ctx.Done():
			return "", context.Cause(ctx)
		}
	}
	answer, err := next()
	if err != nil || answer != rankproto.Placed {
		return failed(answer, err)
	}
	end := func() { in.Close(); _ = endSession(sess) }
	if !serve {
		end()
		return fetched{answer: answer}, nil
	}
	line, err := next()
	port, ok := rankproto.ParseServing(line)
	if err != nil || !ok {
		end() // placed, but serving nothing: the copy is in place either way
		return fetched{answer: answer}, nil
	}
	return fetched{answer: answer, port: port, end: end}, nil
}

// fetchFailure says in a few words why a fetch failed.
func fetchFailure(err error, answer string) string {
	switch {
	case answer == rankproto.NoTools:
		return "the node lacks bash or timeout"
	case err == nil:
		return fmt.Sprintf("unexpected answer %q", answer)
	}
	return err.Error()
}

// addNode adds the server a node became, unless nodes serve no more; its
// end is run when the tree closes (or now, if the tree has closed).
func (t *copyTree) addNode(name, host string, port int, end func()) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		end()
		return
	}
	defer t.mu.Unlock()
	t.closers = append(t.closers, end)
	if t.servingLocked() {
		t.add(&copySource{name: name, host: host, port: port, slots: nodeSlots, node: true})
	}
}

// endSession waits a moment for a server whose input was closed to exit
// (it does at once, and sshd frees the session with it), then closes the
// session regardless: a node that does not answer must not hold up the
// launch, or a Ctrl-C. Its server ends on its own once sshd closes its
// input, at the latest when the connection goes.
// It returns how the session ended: Wait's error, nil when it ended well
// or did not end within that second.
func endSession(sess *ssh.Session) error {
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Second):
	}
	sess.Close()
	return err
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

// fetchTimeout bounds one fetch from another node: 16 MiB take well under
// a second on a cluster network, and a server that stopped answering must
// not hold the node long before it gets its copy over SSH. Until a fetch
// from a kind of server (the coordinator, or nodes) has worked, its
// fetches get untriedTimeout: a firewall that drops the packets of those
// ports makes a connect hang, not fail, and the two fetches that rule a
// kind out should not hold a launch for long.
const (
	fetchTimeout   = 30 * time.Second
	untriedTimeout = 10 * time.Second
)
