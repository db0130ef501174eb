package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"
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
func (l *SSH) prepareGroup(ctx context.Context, g []Target, st *placeStats, spec RankSpec) ([]*sshProc, error) {
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
			exes = slices.Repeat([]string{cachedExe(home, l.build.hash)}, len(g))
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
func (l *SSH) placesCachedOnly(g []Target) bool {
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
func (l *SSH) place(ctx context.Context, c *sshConn, g []Target, st *placeStats, held *heldProbe) ([]string, error) {
	var paths []string
	for _, t := range g {
		if p := l.exeOf(t); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	var ans probeAnswer
	if held != nil {
		ans = held.ans
	} else {
		var err error
		if ans, err = l.probe(ctx, c, paths); err != nil {
			return nil, err
		}
	}
	if err := l.build.checkArch(ans.arch); err != nil {
		return nil, err
	}
	resolved := map[string]string{}
	for i, p := range paths {
		exe, err := l.settle(ctx, c, p, ans, ans.states[i], st, held)
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

// probeAnswer is what the probe script reports about a node.
type probeAnswer struct {
	arch, home string
	tag        string   // the cache directory's tag; "" when it has none
	states     []string // per path: its SHA-256, "absent" or "nosha"
}

// probe runs the probe script for paths ("" is the cached copy).
func (l *SSH) probe(ctx context.Context, c *sshConn, paths []string) (probeAnswer, error) {
	pctx, cancel := l.probeContext(ctx)
	out, err := c.run(pctx, probeCommand(l.build.hash, l.build.unames, paths), nil)
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = context.Cause(pctx) // which deadline, and what usually holds a probe
	}
	cancel()
	if err != nil {
		return probeAnswer{}, fmt.Errorf("probing the node: %w", err)
	}
	return parseProbe(out, len(paths))
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

// parseProbe reads the probe script's answer about n paths.
func parseProbe(out []byte, n int) (probeAnswer, error) {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3+n {
		return probeAnswer{}, fmt.Errorf("probing the node: unexpected answer %q (is the login shell printing something?)", out)
	}
	a := probeAnswer{arch: lines[0], home: lines[1], states: lines[3:]}
	if validTag(lines[2]) {
		a.tag = lines[2]
	}
	return a, nil
}

// validTag accepts what cacheTag makes: 16 lowercase hex digits.
func validTag(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// settle decides about one candidate binary given the probe's answer
// (state): use it, copy this build, or fail.
func (l *SSH) settle(ctx context.Context, c *sshConn, exe string, ans probeAnswer, state string, st *placeStats, held *heldProbe) (string, error) {
	home := ans.home
	hash := l.build.hash
	if exe != "" {
		st.preinstalled.Add(1)
		switch state {
		case "absent":
			return "", fmt.Errorf("preinstalled binary %s (--remote-bin): not an executable file on the node", exe)
		case hash, "nosha":
			return exe, nil
		}
		return "", fmt.Errorf("preinstalled binary %s (--remote-bin) is another build (sha256 %s) than this "+
			"ioswarm (sha256 %s); install this very binary there", exe, shortHash(state), shortHash(hash))
	}
	cached := cachedExe(home, hash)
	if strings.HasPrefix(state, "unsafe ") {
		return "", unsafeCache(state)
	}
	switch state {
	case hash:
		st.cached.Add(1)
		return cached, nil
	case "nosha":
		return "", errors.New("neither openssl nor sha256sum is installed on the node, so a copy of ioswarm cannot be " +
			"verified there (install coreutils, or install ioswarm and pass --remote-bin)")
	case "absent":
	default:
		l.Log.Printf("warning: host %s: %s has sha256 %s, not %s; replacing it\n", c.name, cached, shortHash(state), shortHash(hash))
	}
	if err := l.copyOnce(ctx, c, ans.tag, st, held); err != nil {
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
	cctx, cancel := context.WithTimeoutCause(ctx, copyTimeout,
		fmt.Errorf("copy not done within %v", copyTimeout))
	defer cancel()
	out, err := c.run(cctx, copyCommand(l.build.hash), f)
	if err != nil {
		return fmt.Errorf("copying ioswarm to ~/%s on the node: %w", cacheDir(l.build.hash), err)
	}
	got := strings.TrimSpace(string(out))
	switch {
	case strings.HasPrefix(got, "unsafe "):
		return unsafeCache(got)
	case got != "placed":
		return fmt.Errorf("copying ioswarm to the node: unexpected answer %q", got)
	}
	return nil
}

// unsafeCache turns the scripts' "unsafe OWNER UID MODE TYPE PATH" into
// the one-line refusal a user reads: which path, why it matters, the fix.
func unsafeCache(state string) error {
	f := strings.SplitN(state, " ", 6)
	if len(f) != 6 {
		return fmt.Errorf("the cached ioswarm is not private to you (%s); remove ~/.cache/ioswarm and run again", state)
	}
	owner, uid, mode, typ, p := f[1], f[2], f[3], f[4], f[5]
	why := fmt.Sprintf("is owned by uid %s, not by you (uid %s)", owner, uid)
	fix := fmt.Sprintf("remove it (rm -rf %s)", quoteSh(p))
	switch {
	case typ == "l":
		why = "is a symbolic link"
	case owner == uid:
		why = fmt.Sprintf("has mode %s: group or others may write to it", mode)
		fix = fmt.Sprintf("make it private (chmod go-w %s) or remove it (rm -rf %s)", quoteSh(p), quoteSh(p))
	}
	return fmt.Errorf("refusing the ioswarm cache: %s %s, so another user could change what runs as you; "+
		"%s and run again", p, why, fix)
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
