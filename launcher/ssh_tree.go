package launcher

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/binserve"
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
	root    *binserve.Server
	stop    context.CancelFunc
	token   string
}

// newCopyTree starts the coordinator's server for path. It returns nil
// when it cannot serve: every copy then goes over SSH.
func newCopyTree(path string, log *LineWriter) *copyTree {
	token, err := binserve.NewToken()
	if err != nil {
		log.Printf("warning: %v; copies go over SSH\n", err)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &binserve.Server{Path: path, Token: token}
	if err := s.Listen(ctx, ":0"); err != nil {
		cancel()
		log.Printf("warning: %v; copies go over SSH\n", err)
		return nil
	}
	t := &copyTree{root: s, stop: cancel, token: token, changed: make(chan struct{}),
		worked: map[bool]bool{}, failed: map[bool]int{}, served: map[bool]int{}}
	t.add(&copySource{name: "the coordinator", port: s.Port(), slots: rootSlots})
	return t
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

// serving says whether nodes should start servers: not once fetches
// between nodes have failed and none worked.
func (t *copyTree) serving() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.servingLocked()
}

func (t *copyTree) servingLocked() bool { return t.worked[true] || t.failed[true] < 2 }

// fetch has c's node take its copy (to cached) from a server of the tree.
// It reports false where the node must get it over SSH instead.
func (l *SSH) fetch(ctx context.Context, c *sshConn, cached string, t *copyTree) (bool, error) {
	if t == nil || len(c.jumps) > 0 {
		return false, nil // behind a jump host: reached only through SSH
	}
	s, err := t.acquire(ctx)
	if s == nil || err != nil {
		return false, err
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout+l.connectTimeout())
	out, err := c.run(fctx, fetchCommand(l.build.hash, s.hostFor(c, l.Advertise), s.port), strings.NewReader(t.token+"\n"))
	cancel()
	got := strings.TrimSpace(string(out))
	if strings.HasPrefix(got, "unsafe ") {
		t.giveBack(s) // the server is fine; the node's cache is not
		return false, unsafeCache(got)
	}
	if err != nil || got != "placed" {
		if got == "notools" {
			t.giveBack(s) // the node's shortcoming, not the server's
		} else {
			t.release(s, false)
		}
		if ctx.Err() != nil {
			return false, context.Cause(ctx)
		}
		l.Log.Printf("note: host %s: no copy from %s (%s); sending it over SSH\n", c.name, s.name, fetchFailure(err, got))
		return false, nil
	}
	t.release(s, true)
	if t.serving() {
		l.serveFrom(c, cached, t)
	}
	return true, nil
}

// fetchFailure says in a few words why a fetch failed.
func fetchFailure(err error, out string) string {
	switch {
	case err == nil && out == "notools":
		return "the node lacks bash or timeout"
	case err == nil:
		return fmt.Sprintf("unexpected answer %q", out)
	}
	return err.Error()
}

// serveFrom starts a copy server on c's node, which has just placed a
// verified copy at exe, and adds it to the tree once it listens. A node
// that cannot serve simply does not: its copy is in place either way.
func (l *SSH) serveFrom(c *sshConn, exe string, t *copyTree) {
	a, ok := c.client.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return
	}
	sess, err := c.client.NewSession()
	if err != nil {
		return
	}
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	if err1 != nil || err2 != nil || sess.Start(execCommand(exe, []string{"serve-copy"})) != nil {
		sess.Close()
		return
	}
	end := func() { in.Close(); endSession(sess) }
	port := make(chan int, 1)
	go func() {
		br := bufio.NewReaderSize(out, 64)
		line, _ := br.ReadString('\n')
		p, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "serving "))
		if err != nil || !strings.HasPrefix(line, "serving ") {
			p = 0
		}
		port <- p
		_, _ = io.Copy(io.Discard, br)
	}()
	p := 0
	if _, err := io.WriteString(in, t.token+"\n"); err == nil {
		select {
		case p = <-port:
		case <-time.After(l.connectTimeout()):
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closers = append(t.closers, end)
	if p > 0 && t.servingLocked() {
		t.add(&copySource{name: c.name, host: a.IP.String(), port: p, slots: nodeSlots, node: true})
	}
}

// endSession waits a moment for a server whose input was closed to exit
// (it does at once, and sshd frees the session with it), then closes the
// session regardless: a node that does not answer must not hold up the
// launch, or a Ctrl-C. Its server ends on its own once sshd closes its
// input, at the latest when the connection goes.
func endSession(sess *ssh.Session) {
	done := make(chan struct{})
	go func() { _ = sess.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	sess.Close()
}

// close stops every server of the tree, the coordinator's and the nodes',
// and returns once their sessions have ended.
func (t *copyTree) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	closers := t.closers
	t.closers = nil
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, end := range closers {
		wg.Add(1)
		go func() { defer wg.Done(); end() }()
	}
	wg.Wait()
	t.stop()
	t.root.Wait()
}
