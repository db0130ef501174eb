package sshlaunch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// placeStats counts, over one Prepare, how each node got its binary, and
// holds the copies under way by cache directory.
type placeStats struct {
	copied, cached, viaShared, preinstalled, failed atomic.Int32
	fetched                                         atomic.Int32 // of copied: from the tree's servers, not over SSH
	copies                                          sharedCopies
	tree                                            *copyTree // nil: every copy over SSH
}

// prepareGroup connects to one node (more connections when it runs many
// ranks), places the binary and records where each of its ranks runs.
// With spec, it then starts the group's ranks and returns them: where the
// node holds a verified copy, the first rank starts in the session that
// finds it (quickStart).
func (l *SSH) prepareGroup(ctx context.Context, g []launcher.Target, st *placeStats, spec launcher.RankSpec) ([]*sshProc, error) {
	t0 := g[0]
	rt, err := l.res.route(t0.Host, t0.User, t0.Port)
	if err != nil {
		return nil, err
	}
	conns := make([]*sshConn, (len(g)+ranksPerConn-1)/ranksPerConn)
	for i := range conns {
		c, err := l.dial(ctx, t0.Host, rt)
		if err != nil {
			return nil, err
		}
		if err := l.track(c); err != nil {
			return nil, err
		}
		conns[i] = c
	}
	var procs []*sshProc
	var exes []string
	var held *heldProbe // a quick start's session that probed, to start the first rank
	if spec != nil && l.placesCachedOnly(g) {
		args, stdin := spec(t0, l.addressOf(conns[0]))
		p, home, h, err := l.quickStart(ctx, conns[0], t0, args, stdin)
		if err != nil {
			return nil, err
		}
		if p != nil {
			l.trackProc(p)
			procs = append(procs, p)
			st.cached.Add(1)
			exes = slices.Repeat([]string{rankproto.CachedExe(home, l.build.hash)}, len(g))
		} else {
			held = h
			defer func() {
				if held != nil {
					held.close()
				}
			}()
		}
	}
	if exes == nil {
		if exes, err = l.place(ctx, conns[0], g, st, held); err != nil {
			return nil, err
		}
	}
	if !held.alive() { // a fetch in it failed: the rank takes a session of its own
		held = nil
	}
	if held != nil {
		p, err := held.start(ctx)
		held = nil
		if err != nil {
			return nil, err
		}
		l.trackProc(p)
		procs = append(procs, p)
	}
	l.mu.Lock()
	for i, t := range g {
		l.nodes[t.Rank] = &sshNode{conn: conns[i/ranksPerConn], exe: exes[i]}
	}
	l.mu.Unlock()
	if spec == nil {
		return nil, nil
	}
	for i := len(procs); i < len(g); i++ {
		c := conns[i/ranksPerConn]
		args, stdin := spec(g[i], l.addressOf(c))
		p, err := startRank(c, g[i], exes[i], args, stdin, l.Log, l.Grace)
		if err != nil {
			return procs, fmt.Errorf("start %s: %w", exes[i], err)
		}
		l.trackProc(p)
		procs = append(procs, p)
	}
	return procs, nil
}

// placesCachedOnly reports whether every target of g runs this build from
// the node's cache, as quickStart starts it.
func (l *SSH) placesCachedOnly(g []launcher.Target) bool {
	for _, t := range g {
		if l.exeOf(t) != "" {
			return false
		}
	}
	return true
}

// track records a connection for Close; a launcher closed meanwhile (the
// user pressed Ctrl-C) closes it at once.
func (l *SSH) track(c *sshConn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		c.close()
		return errors.New("interrupted")
	}
	l.conns = append(l.conns, c)
	return nil
}

// trackProc records a rank for Close; a launcher closed meanwhile stops it
// at once.
func (l *SSH) trackProc(p *sshProc) {
	l.mu.Lock()
	closed := l.closed
	if !closed {
		l.procs = append(l.procs, p)
	}
	l.mu.Unlock()
	if closed {
		p.Stop()
	}
}

// place finds or puts the binary of every target of g on the node and
// returns each target's binary path. One probe tells the node's
// architecture, its home directory, its cache directory's tag and the
// SHA-256 of every candidate binary; only a missing or altered cached
// copy is then sent. held, when not nil, is the quick start's session
// that already probed (g then places the cached copy only), waiting, where
// a fetch may run; else the probe runs here.
func (l *SSH) place(ctx context.Context, c *sshConn, g []launcher.Target, st *placeStats, held *heldProbe) ([]string, error) {
	var paths []string
	for _, t := range g {
		if p := l.exeOf(t); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	var ans rankproto.ProbeAnswer
	if held != nil {
		ans = held.ans
	} else {
		var err error
		if ans, err = l.probe(ctx, c, paths); err != nil {
			return nil, err
		}
	}
	if err := l.build.checkArch(ans.Arch); err != nil {
		return nil, err
	}
	resolved := map[string]string{}
	for i, p := range paths {
		exe, err := l.settle(ctx, c, p, ans, ans.States[i], st, held)
		if err != nil {
			return nil, err
		}
		resolved[p] = exe
	}
	exes := make([]string, len(g))
	for i, t := range g {
		exes[i] = resolved[l.exeOf(t)]
	}
	return exes, nil
}

// probe runs the probe script for paths ("" is the cached copy).
func (l *SSH) probe(ctx context.Context, c *sshConn, paths []string) (rankproto.ProbeAnswer, error) {
	pctx, cancel := context.WithTimeout(ctx, l.probeTimeout())
	out, err := c.run(pctx, rankproto.ProbeCommand(l.build.hash, l.build.unames, paths), nil)
	cancel()
	if err != nil {
		return rankproto.ProbeAnswer{}, fmt.Errorf("probing the node: %w", err)
	}
	return rankproto.ParseProbe(out, len(paths))
}

// probeTimeout bounds a session that probes a node. A dead link is the
// keepalives' business; this bound is for a node that answers them but
// hangs in the probe (a home on a dead NFS).
func (l *SSH) probeTimeout() time.Duration { return l.connectTimeout() + time.Minute }

// settle decides about one candidate binary given the probe's answer
// (state): use it, copy this build, or fail.
func (l *SSH) settle(ctx context.Context, c *sshConn, exe string, ans rankproto.ProbeAnswer, state string, st *placeStats, held *heldProbe) (string, error) {
	home := ans.Home
	hash := l.build.hash
	if exe != "" {
		st.preinstalled.Add(1)
		switch state {
		case rankproto.StateAbsent:
			return "", fmt.Errorf("preinstalled binary %s (--remote-bin): not an executable file on the node", exe)
		case hash, rankproto.StateNoSHA:
			return exe, nil
		}
		return "", fmt.Errorf("preinstalled binary %s (--remote-bin) is another build (sha256 %s) than this "+
			"ioswarm (sha256 %s); install this very binary there", exe, shortHash(state), shortHash(hash))
	}
	cached := rankproto.CachedExe(home, hash)
	if rankproto.IsUnsafe(state) {
		return "", rankproto.UnsafeCacheError(state)
	}
	switch state {
	case hash:
		st.cached.Add(1)
		return cached, nil
	case rankproto.StateNoSHA:
		return "", errors.New("neither openssl nor sha256sum is installed on the node, so a copy of ioswarm cannot be " +
			"verified there (install coreutils, or install ioswarm and pass --remote-bin)")
	case rankproto.StateAbsent:
	default:
		l.Log.Printf("warning: host %s: %s has sha256 %s, not %s; replacing it\n", c.name, cached, shortHash(state), shortHash(hash))
	}
	if err := l.copyOnce(ctx, c, ans.Tag, st, held); err != nil {
		return "", err
	}
	return cached, nil
}

// deliver puts this build in the cache of c's node: from the copy tree's
// servers where it can (in held, the node's waiting quick start session,
// when it has one), else over SSH.
func (l *SSH) deliver(ctx context.Context, c *sshConn, st *placeStats, held *heldProbe) error {
	ok, err := l.fetch(ctx, c, st.tree, held)
	if err != nil {
		return err
	}
	if ok {
		st.fetched.Add(1)
		return nil
	}
	return l.copyTo(ctx, c)
}

// copyTo streams the binary to the node's cache; the node checks the
// SHA-256 before the copy takes the final name.
func (l *SSH) copyTo(ctx context.Context, c *sshConn) error {
	f, err := os.Open(l.build.path)
	if err != nil {
		return fmt.Errorf("copying ioswarm: %w", err)
	}
	defer f.Close()
	cctx, cancel := context.WithTimeoutCause(ctx, rankproto.CopyTimeout,
		fmt.Errorf("copy not done within %v", rankproto.CopyTimeout))
	defer cancel()
	out, err := c.run(cctx, rankproto.CopyCommand(l.build.hash), f)
	if err != nil {
		return fmt.Errorf("copying ioswarm to ~/%s on the node: %w", rankproto.CacheDir(l.build.hash), err)
	}
	got := strings.TrimSpace(string(out))
	switch {
	case rankproto.IsUnsafe(got):
		return rankproto.UnsafeCacheError(got)
	case got != rankproto.Placed:
		return fmt.Errorf("copying ioswarm to the node: unexpected answer %q", got)
	}
	return nil
}

func shortHash(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// logPlacement says how the nodes got the binary: the line that shows a
// second run found its copies in place.
func (l *SSH) logPlacement(groups int, took time.Duration, st *placeStats) {
	msg := fmt.Sprintf("ssh: %d of %d nodes ready in %.2f s", groups-int(st.failed.Load()), groups, took.Seconds())
	if n, m, sh := st.copied.Load(), st.cached.Load(), st.viaShared.Load(); n+m+sh > 0 {
		msg += fmt.Sprintf("; ioswarm %s copied to %d, already cached on %d", shortHash(l.build.hash), n, m)
		if sh > 0 {
			msg += fmt.Sprintf(", found in a home shared with a node copied to on %d", sh)
		}
	}
	if f := st.fetched.Load(); f > 0 {
		root, nodes := st.tree.counts()
		msg += fmt.Sprintf("; streamed to %d (%d from the coordinator, %d from other nodes), %d over SSH",
			f, root, nodes, st.copied.Load()-f)
	}
	if n := st.preinstalled.Load(); n > 0 {
		msg += fmt.Sprintf("; preinstalled binary on %d", n)
	}
	l.Log.Printf("%s\n", msg)
}
