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
// copy is then sent. p.held, when not nil, is the quick start's session
// that already probed (g then places the cached copy only), waiting, where
// a fetch may run; else the probe runs here. It ends with p placed.
func (p *placement) place(ctx context.Context) error {
	l, c := p.l, p.conns[0]
	var paths []string
	for _, t := range p.g {
		if exe := l.exeOf(t); !slices.Contains(paths, exe) {
			paths = append(paths, exe)
		}
	}
	var ans rankproto.ProbeAnswer
	if p.held != nil {
		ans = p.held.ans
	} else {
		var err error
		if ans, err = l.probe(ctx, c, paths); err != nil {
			return err
		}
	}
	if err := l.build.checkArch(ans.Arch); err != nil {
		return err
	}
	resolved := map[string]string{}
	for i, path := range paths {
		exe, err := p.settle(ctx, path, ans, ans.States[i])
		if err != nil {
			return err
		}
		resolved[path] = exe
	}
	p.exes = make([]string, len(p.g))
	for i, t := range p.g {
		p.exes[i] = resolved[l.exeOf(t)]
	}
	p.enter(placed)
	return nil
}

// probe runs the probe script for paths ("" is the cached copy).
func (l *SSH) probe(ctx context.Context, c *sshConn, paths []string) (rankproto.ProbeAnswer, error) {
	pctx, cancel := l.probeContext(ctx)
	out, err := c.run(pctx, rankproto.ProbeCommand(l.build.hash, l.build.unames, paths), nil)
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = context.Cause(pctx) // which deadline, and what usually holds a probe
	}
	cancel()
	if err != nil {
		return rankproto.ProbeAnswer{}, fmt.Errorf("probing the node: %w", err)
	}
	return rankproto.ParseProbe(out, len(paths))
}

// probeTimeout bounds a session that probes a node. A dead link is the
// keepalives' business; this bound is for a node that answers them but
// hangs in the probe (a home on a dead NFS).
func (l *SSH) probeTimeout() time.Duration {
	if l.probeLimit > 0 {
		return l.probeLimit
	}
	return l.connectTimeout() + time.Minute
}

// probeContext is ctx bounded by the probe's deadline, whose expiry says
// what ran out: "context deadline exceeded" alone left the user to guess
// that a login shell (~/.bashrc on a hung home) held the node.
func (l *SSH) probeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	limit := l.probeTimeout()
	return context.WithTimeoutCause(ctx, limit, fmt.Errorf("no answer within %v (--connect-timeout + 1m): "+
		"is a login shell blocked there (~/.bashrc, a hung home directory)?", limit))
}

// settle decides about one candidate binary given the probe's answer
// (state): use it, copy this build, or fail.
func (p *placement) settle(ctx context.Context, exe string, ans rankproto.ProbeAnswer, state string) (string, error) {
	l, st := p.l, p.st
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
		l.Log.Printf("warning: host %s: %s has sha256 %s, not %s; replacing it\n", p.conns[0].name, cached, shortHash(state), shortHash(hash))
	}
	if err := p.copyOnce(ctx, ans.Tag); err != nil {
		return "", err
	}
	return cached, nil
}

// deliver puts this build in the node's cache: from the copy tree's
// servers where it can (in p.held, the node's waiting quick start session,
// when it has one), else over SSH.
func (p *placement) deliver(ctx context.Context) error {
	ok, err := p.fetch(ctx)
	if err != nil {
		return err
	}
	if ok {
		p.st.fetched.Add(1)
		return nil
	}
	p.enter(copying)
	return p.l.copyTo(ctx, p.conns[0])
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
