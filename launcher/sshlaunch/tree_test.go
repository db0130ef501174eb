package sshlaunch

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// fetches counts the fetch sessions a test server was asked to run (a
// quick start's held session fetches too, without a session of its own).
func fetches(s *testServer) int { return ran(s, `exec "$d/$1/ioswarm" serve-copy`) }

// needsStreamTools skips where this machine lacks what a node needs to
// fetch a stream.
func needsStreamTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here: nodes without it get their copy over SSH", tool)
		}
	}
}

// treeLauncher is a launcher with the copy tree aimed at a test server
// that runs the fake rank, and the log it writes.
func treeLauncher(t *testing.T) (*testServer, string, *SSH, *testio.LockedBuffer) {
	t.Helper()
	needsStreamTools(t)
	s := newTestServer(t)
	bin := writeFakeRank(t)
	log := &testio.LockedBuffer{}
	l := testSSH(t, s, bin, log)
	l.Tree = true
	return s, bin, l, log
}

// With the tree, a node that needs the build streams it from the
// coordinator's server, checks it and places it; nothing goes over SSH.
func TestSSHTreeStreamsTheCopy(t *testing.T) {
	s, bin, l, log := treeLauncher(t)
	mustPrepare(t, l, sshTarget(s, 0))
	b, _ := inspectBinary(bin, "")
	got, err := os.ReadFile(filepath.Join(s.home, rankproto.CacheDir(b.hash), "ioswarm"))
	want, _ := os.ReadFile(bin)
	if err != nil || string(got) != string(want) {
		t.Fatalf("the cached copy is not the build (%v); log:\n%s", err, log.String())
	}
	if fetches(s) != 1 || copies(s) != 0 {
		t.Errorf("%d fetches and %d SSH copies, want 1 and 0", fetches(s), copies(s))
	}
	if !strings.Contains(log.String(), "copied to 1, already cached on 0; streamed to 1 (1 from the coordinator, 0 from other nodes), 0 over SSH") {
		t.Errorf("log does not say the copy was streamed:\n%s", log.String())
	}
}

// startTree prepares and starts one rank on s as a run does, with the
// tree; before runs, if given, once the coordinator's server exists
// (to aim it elsewhere).
func startTree(t *testing.T, s *testServer, l *SSH, before func(*copyTree)) *placeStats {
	t.Helper()
	target := sshTarget(s, 0)
	if err := l.init([]launcher.Target{target}); err != nil {
		t.Fatal(err)
	}
	st := placeStats{tree: newCopyTree(l.build.path, "", l.Log, 1)}
	if before != nil {
		st.tree.mu.Lock()
		st.tree.startRoot()
		before(st.tree)
		st.tree.mu.Unlock()
	}
	spec := func(launcher.Target, string) ([]string, []byte) { return []string{"--job", "t"}, []byte("c0ffee\n") }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	started, herrs := l.prepareAll(ctx, groupTargets([]launcher.Target{target}), &st, spec)
	st.tree.close()
	if len(herrs) > 0 {
		t.Fatalf("Prepare: %v", herrs)
	}
	t.Cleanup(started[0].Stop)
	return &st
}

// A cold node that streams its copy does so in the session that probed
// it, which then becomes the rank: one session, as on a warm node.
func TestSSHTreeColdStartTakesOneSession(t *testing.T) {
	s, _, l, log := treeLauncher(t)
	st := startTree(t, s, l, nil)
	waitLog(t, log, "[127.0.0.1 rank 0] secret c0ffee, args rank --job t")
	if got := s.seen(); len(got) != 1 || !strings.Contains(got[0], "echo probe") {
		t.Errorf("a cold start ran %q; want the quick start alone", got)
	}
	if root, nodes := st.tree.counts(); st.fetched.Load() != 1 || root != 1 || nodes != 0 {
		t.Errorf("%d copies streamed, %d by the coordinator, %d by nodes; want 1, 1, 0", st.fetched.Load(), root, nodes)
	}
}

// A stream that fails in the held session leaves it waiting: the node gets
// its copy over SSH, with a note saying why, and its rank still starts in
// the session that probed it.
func TestSSHTreeHeldFetchFailureKeepsTheSession(t *testing.T) {
	s, _, l, log := treeLauncher(t)
	startTree(t, s, l, func(tr *copyTree) { tr.sources[0].port = refusedPort(t) })
	waitLog(t, log, "[127.0.0.1 rank 0] secret c0ffee, args rank --job t")
	if got := s.seen(); len(got) != 2 || copies(s) != 1 || !strings.Contains(got[0], "echo probe") {
		t.Errorf("ran %q (%d SSH copies); want the quick start, then an SSH copy", got, copies(s))
	}
	if !strings.Contains(log.String(), "no copy from the coordinator (exit status 4") {
		t.Errorf("log does not say why the stream failed:\n%s", log.String())
	}
}

// The rank of a node that fetched its copy in its held session serves the
// copy to the next node (here at a port where nothing listens, so the
// next node's fetch from it fails and is noted, naming the node), and is
// told to stop once every node is placed.
func TestSSHTreeRankServesItsCopy(t *testing.T) {
	needsStreamTools(t)
	_, user := newKey(t)
	servers := []*testServer{newTestServerFor(t, user), newTestServerFor(t, user)}
	bin := writeFakeRank(t)
	var log testio.LockedBuffer
	l := testSSH(t, servers[0], bin, &log)
	l.Tree, l.Fanout = true, 1 // one node after another: the first serves the second
	knowAll(t, servers)
	port := refusedPort(t)
	for _, s := range servers { // whichever node goes first serves
		if err := os.WriteFile(filepath.Join(s.home, "serveport"), []byte(fmt.Sprintln(port)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	targets := []launcher.Target{sshTarget(servers[0], 0), sshTarget(servers[1], 1)}
	if err := l.init(targets); err != nil {
		t.Fatal(err)
	}
	st := placeStats{tree: newCopyTree(bin, "", l.Log, 2)}
	// The second node's quick start waits until the first node's rank has
	// answered and become a server (it answers in the background).
	var arrived atomic.Int32
	gate := func(command string) {
		if !strings.Contains(command, "echo probe") || arrived.Add(1) == 1 {
			return
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			st.tree.mu.Lock()
			served := slices.ContainsFunc(st.tree.sources, func(c *copySource) bool { return c.node })
			st.tree.mu.Unlock()
			if served {
				return
			}
		}
	}
	for _, s := range servers {
		s.gate.Store(&gate)
	}
	spec := func(launcher.Target, string) ([]string, []byte) { return []string{"--job", "t"}, []byte("c0ffee\n") }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	started, herrs := l.prepareAll(ctx, groupTargets(targets), &st, spec)
	for _, p := range started {
		t.Cleanup(p.Stop)
	}
	if len(herrs) > 0 {
		st.tree.close()
		t.Fatalf("Prepare: %v", herrs)
	}
	st.tree.close()
	waitLog(t, &log, "asked to unserve")
	if !strings.Contains(log.String(), "note: host 127.0.0.1: no copy from 127.0.0.1 (exit status 4") {
		t.Errorf("the second node did not try the first's server:\n%s", log.String())
	}
	if n := strings.Count(log.String(), "asked to serve"); n != 1 {
		t.Errorf("%d ranks asked to serve, want 1:\n%s", n, log.String())
	}
	sessions := len(servers[0].seen()) + len(servers[1].seen())
	if sessions != 3 || fetches(servers[0])+fetches(servers[1]) != 0 || copies(servers[0])+copies(servers[1]) != 1 {
		t.Errorf("ran %q and %q; want a quick start each and one SSH copy", servers[0].seen(), servers[1].seen())
	}
	tr := st.tree
	tr.mu.Lock()
	promised := tr.promised
	tr.mu.Unlock()
	if promised != 0 {
		t.Errorf("%d servers still promised after the launch", promised)
	}
}

// A node without bash says so in its held session, gets its copy over
// SSH, and its rank still starts in that session.
func TestSSHTreeHeldFetchWithoutBash(t *testing.T) {
	s, _, l, log := treeLauncher(t)
	s.path = pathWithout(t, "bash")
	startTree(t, s, l, nil)
	waitLog(t, log, "[127.0.0.1 rank 0] secret c0ffee, args rank --job t")
	if got := s.seen(); len(got) != 2 || copies(s) != 1 {
		t.Errorf("ran %q (%d SSH copies); want the quick start, then an SSH copy", got, copies(s))
	}
	if !strings.Contains(log.String(), "no copy from the coordinator (the node lacks bash or timeout)") {
		t.Errorf("log does not say why there was no stream:\n%s", log.String())
	}
}

// A held session that does not answer its fetch in time (here a timeout
// program that never times out, and a server that never sends) is closed:
// the node gets its copy over SSH and its rank a session of its own.
func TestSSHTreeSilentHeldFetchClosesTheSession(t *testing.T) {
	s, _, l, log := treeLauncher(t)
	dir := t.TempDir()
	lazy := "#!/bin/sh\nshift\nexec \"$@\"\n" // runs the command without a limit
	if err := os.WriteFile(filepath.Join(dir, "timeout"), []byte(lazy), 0o755); err != nil {
		t.Fatal(err)
	}
	s.path = dir + ":" + os.Getenv("PATH")
	l.ConnectTimeout = time.Second
	begin := time.Now()
	startTree(t, s, l, func(tr *copyTree) {
		tr.untried = time.Second
		tr.sources[0].port = blackHole(t)
	})
	waitLog(t, log, "[127.0.0.1 rank 0] secret c0ffee, args rank --job t")
	took := time.Since(begin)
	got := s.seen()
	if len(got) != 3 || copies(s) != 1 || ran(s, `echo $$; exec "$0" "$@"`) != 1 {
		t.Errorf("ran %q (%d SSH copies); want the quick start, an SSH copy and the rank's own session", got, copies(s))
	}
	if !strings.Contains(log.String(), "no copy from the coordinator (no answer within 2s)") {
		t.Errorf("log does not say the fetch went unanswered:\n%s", log.String())
	}
	// 2 s of fetch timeout and the copies take well under 10 s idle;
	// 20 s leaves a loaded machine (and -race) room while still telling
	// a fetch held for the full fetchTimeout (30 s).
	if took > 20*time.Second {
		t.Errorf("the silent fetch held the node %v", took)
	}
}

// knowAll makes the first server's known_hosts file, which the launcher
// of a test reads, name every server's host key.
func knowAll(t *testing.T, servers []*testServer) {
	t.Helper()
	known := ""
	for _, s := range servers {
		k, _ := os.ReadFile(s.known)
		known += string(k)
	}
	if err := os.WriteFile(servers[0].known, []byte(known), 0o600); err != nil {
		t.Fatal(err)
	}
}

// refusedPort is a local port nothing listens on.
func refusedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// A stream that fails leaves the node to an SSH copy, with a note naming
// the node and the server; after two such failures and no success the
// coordinator's server is tried no more, so a site that blocks the
// streams pays for two attempts, not one per node.
func TestSSHTreeFallsBackToSSH(t *testing.T) {
	needsStreamTools(t)
	_, user := newKey(t)
	servers := []*testServer{newTestServerFor(t, user), newTestServerFor(t, user), newTestServerFor(t, user)}
	bin := writeFakeRank(t)
	var log testio.LockedBuffer
	l := testSSH(t, servers[0], bin, &log)
	l.Tree, l.Fanout = true, 1 // one node after another: the order of failures is known
	knowAll(t, servers)
	targets := []launcher.Target{sshTarget(servers[0], 0), sshTarget(servers[1], 1), sshTarget(servers[2], 2)}
	if err := l.init(targets); err != nil {
		t.Fatal(err)
	}
	st := placeStats{tree: newCopyTree(bin, "", l.Log, 3)}
	st.tree.mu.Lock()
	st.tree.startRoot()
	st.tree.sources[0].port = refusedPort(t)
	st.tree.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, herrs := l.prepareAll(ctx, groupTargets(targets), &st, nil)
	st.tree.close()
	if len(herrs) > 0 {
		t.Fatalf("Prepare: %v", herrs)
	}
	var nfetch, ncopy int
	for _, s := range servers {
		nfetch += fetches(s)
		ncopy += copies(s)
	}
	if nfetch != 2 || ncopy != 3 || st.fetched.Load() != 0 {
		t.Errorf("%d fetches, %d SSH copies, %d streamed; want 2, 3, 0", nfetch, ncopy, st.fetched.Load())
	}
	if n := strings.Count(log.String(), "no copy from the coordinator"); n != 2 {
		t.Errorf("%d notes of a failed stream, want 2:\n%s", n, log.String())
	}
}

// pathWithout is a directory of links to every program in this PATH but
// the ones named: a node that lacks them.
func pathWithout(t *testing.T, missing ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if slices.Contains(missing, e.Name()) {
				continue
			}
			_ = os.Symlink(filepath.Join(d, e.Name()), filepath.Join(dir, e.Name())) // the first in PATH wins
		}
	}
	return dir
}

// A node without bash gets its copy over SSH, says why, and is not held
// against the coordinator's server: after two such nodes, the next node
// still streams its copy from it.
func TestSSHTreeNodeWithoutBashGetsSSHCopy(t *testing.T) {
	needsStreamTools(t)
	_, user := newKey(t)
	bare := []*testServer{newTestServerFor(t, user), newTestServerFor(t, user)}
	full := newTestServerFor(t, user)
	noBash := pathWithout(t, "bash")
	known := ""
	for _, s := range append(bare, full) {
		k, _ := os.ReadFile(s.known)
		known += string(k)
	}
	for _, s := range bare {
		s.path = noBash
	}
	bin := writeFakeRank(t)
	var log testio.LockedBuffer
	l := testSSH(t, full, bin, &log)
	l.Tree = true
	if err := os.WriteFile(full.known, []byte(known), 0o600); err != nil {
		t.Fatal(err)
	}
	first := []launcher.Target{sshTarget(bare[0], 0), sshTarget(bare[1], 1)}
	if err := l.init(append(first, sshTarget(full, 2))); err != nil {
		t.Fatal(err)
	}
	st := placeStats{tree: newCopyTree(bin, "", l.Log, 3)}
	defer st.tree.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, herrs := l.prepareAll(ctx, groupTargets(first), &st, nil); len(herrs) > 0 {
		t.Fatalf("Prepare: %v", herrs)
	}
	if _, herrs := l.prepareAll(ctx, groupTargets([]launcher.Target{sshTarget(full, 2)}), &st, nil); len(herrs) > 0 {
		t.Fatalf("Prepare: %v", herrs)
	}
	if copies(bare[0]) != 1 || copies(bare[1]) != 1 || fetches(full) != 1 || copies(full) != 0 {
		t.Errorf("nodes without bash: %d and %d SSH copies (want 1 each); the other: %d fetches, %d SSH copies (want 1, 0)",
			copies(bare[0]), copies(bare[1]), fetches(full), copies(full))
	}
	if n := strings.Count(log.String(), "the node lacks bash or timeout"); n != 2 {
		t.Errorf("%d notes saying why, want 2:\n%s", n, log.String())
	}
}

// The coordinator's server listens only once a node needs a copy: a warm
// launch opens no port.
func TestCopyTreeListensOnlyWhenACopyIsNeeded(t *testing.T) {
	tree := newCopyTree(writeFakeRank(t), "127.0.0.1", launcher.NewLineWriter(io.Discard), 1)
	if tree.root != nil || len(tree.sources) != 0 {
		t.Fatal("the coordinator's server listens before any copy is needed")
	}
	tree.close()
	tree = newCopyTree(writeFakeRank(t), "127.0.0.1", launcher.NewLineWriter(io.Discard), 1)
	s, err := tree.acquire(context.Background())
	if err != nil || s == nil || tree.root == nil || s.port != tree.root.Port() {
		t.Fatalf("first copy: server %+v, %v; want the coordinator's, listening", s, err)
	}
	tree.giveBack(s)
	tree.close()
}

// A server that takes the connection and sends nothing (or a firewall
// that drops the packets, so the connect hangs) holds a node only for the
// short limit of a kind of server that has not worked yet, not for the
// full fetch timeout; the node then gets its copy over SSH.
func TestSSHTreeGivesUpSoonOnASilentServer(t *testing.T) {
	s, bin, l, log := treeLauncher(t)
	targets := []launcher.Target{sshTarget(s, 0)}
	if err := l.init(targets); err != nil {
		t.Fatal(err)
	}
	st := placeStats{tree: newCopyTree(bin, "", l.Log, 1)}
	st.tree.untried = time.Second
	st.tree.mu.Lock()
	st.tree.startRoot()
	st.tree.sources[0].port = blackHole(t)
	st.tree.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*fetchTimeout)
	defer cancel()
	begin := time.Now()
	_, herrs := l.prepareAll(ctx, groupTargets(targets), &st, nil)
	took := time.Since(begin)
	st.tree.close()
	if len(herrs) > 0 {
		t.Fatalf("Prepare: %v", herrs)
	}
	if fetches(s) != 1 || copies(s) != 1 || !strings.Contains(log.String(), "no copy from the coordinator") {
		t.Errorf("%d fetches, %d SSH copies, log:\n%s\nwant a failed fetch, then an SSH copy", fetches(s), copies(s), log.String())
	}
	if took >= fetchTimeout/2 {
		t.Errorf("the silent server held the node %v; its kind never worked, so it had %v", took, st.tree.untried)
	}
	t.Logf("fell back after %v: %s", took, log.String())
}

// simulateTree runs a cold launch of n nodes through the tree's
// bookkeeping in rounds: each round every fetch under way ends, its node
// is placed and, if it was to serve, becomes a server; then the nodes
// still waiting take every free slot. It returns the rounds taken and the
// nodes that served. With always, every node serves, as before serveNext.
func simulateTree(t *testing.T, n int, always bool) (rounds, servers int) {
	t.Helper()
	tree := newCopyTree(writeFakeRank(t), "127.0.0.1", launcher.NewLineWriter(io.Discard), n)
	defer tree.close()
	type fetch struct {
		src   *copySource
		serve bool
	}
	waiting, node := n, 0
	var under []fetch
	for waiting > 0 || len(under) > 0 {
		for _, f := range under {
			tree.release(f.src, true)
			if f.serve {
				node++
				tree.addNode(fmt.Sprint("node", node), "127.0.0.1", 1, func() {})
				servers++
			}
			if f.serve && !always {
				tree.endFetch()
			}
			tree.placed()
		}
		under = under[:0]
		for waiting > 0 {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // take a free slot or none: never wait
			src, _ := tree.acquire(ctx)
			if src == nil {
				break
			}
			waiting--
			under = append(under, fetch{src, always || tree.serveNext()})
		}
		rounds++
		if rounds > 100 {
			t.Fatalf("%d nodes: no progress after 100 rounds", n)
		}
	}
	return rounds, servers
}

// A node serves its copy only while more nodes may want one than the free
// and promised node slots can take: a cold launch then ends in as many
// rounds of copies as when every node served, with far fewer servers.
func TestCopyTreeServesOnlyWhereWanted(t *testing.T) {
	for _, n := range []int{1, 3, 16, 64, 200, 1000} {
		r, s := simulateTree(t, n, false)
		rAll, sAll := simulateTree(t, n, true)
		t.Logf("%d nodes: %d rounds, %d servers; every node serving: %d rounds, %d servers", n, r, s, rAll, sAll)
		if r > rAll {
			t.Errorf("%d nodes: %d rounds of copies, %d when every node serves", n, r, rAll)
		}
		if n >= 16 && s > sAll/2 {
			t.Errorf("%d nodes: %d of %d nodes served; want at most half", n, s, n)
		}
	}
}
