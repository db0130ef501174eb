package sshlaunch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// SSH starts ranks over SSH. Prepare connects to every node in parallel,
// checks its architecture and places this binary in the node's private
// cache, unless a node already holds a copy whose SHA-256 verifies or a
// preinstalled binary is named. Binary and Home must be set; a nil Log
// discards the launcher's messages.
type SSH struct {
	Binary         string        // the file placed on nodes (this executable)
	BinaryHash     string        // its hex SHA-256 (selfbin.Self); "" = hash the file
	RemoteBin      string        // use this path on every node instead of placing Binary
	User           string        // login name for entries that give none (--ssh-user)
	Identities     []string      // private key files tried first (--identity)
	ConfigFiles    []string      // ssh_config files, first wins; missing files are skipped
	Home           string        // this user's home directory (~ in paths)
	LocalUser      string        // this user's login name, the last default
	AgentSocket    string        // ssh-agent's socket ("" = no agent)
	ConnectTimeout time.Duration // per node: TCP, handshake and login; keepalive limit
	Fanout         int           // nodes contacted at once
	Advertise      string        // address ranks dial back ("" = this end of each connection)
	Tree           bool          // copies spread from node to node (tree.go); false: all over SSH
	Log            *launcher.LineWriter
	Grace          time.Duration // Stop's wait between steps

	keys hostKeys
	ids  *identities

	mu     sync.Mutex
	res    *resolver
	build  *binaryInfo
	nodes  map[int]*sshNode // by rank
	conns  []*sshConn
	procs  []*sshProc
	closed bool

	probeLimit time.Duration // tests shorten a probe's deadline; 0: probeTimeout's default
}

// sshNode is where one rank runs: its connection and its binary's path.
type sshNode struct {
	conn *sshConn
	exe  string
}

// ranksPerConn bounds the sessions on one connection: OpenSSH allows 10
// (MaxSessions), and the ranks of a host listed many times, plus a cleanup
// or kill session, must fit.
const ranksPerConn = 8

// Name implements Launcher.
func (l *SSH) Name() string { return "ssh" }

func (l *SSH) connectTimeout() time.Duration {
	if l.ConnectTimeout <= 0 {
		return 10 * time.Second
	}
	return l.ConnectTimeout
}

// Prepare implements Launcher. Every node is tried, also after one fails,
// so that one run names every unreachable node; the error is then a
// HostErrors listing the targets that failed, and the others stay ready.
func (l *SSH) Prepare(ctx context.Context, targets []launcher.Target) ([]string, error) {
	if _, err := l.prepare(ctx, targets, nil); err != nil {
		return nil, err
	}
	return l.addresses(targets), nil
}

// PrepareStart implements Starter: each node's ranks start as soon as
// that node is ready, the first of them, on a node that holds a verified
// copy, in the session that finds it. Errors are as Prepare's; ranks
// started on the nodes that did not fail run until Close.
func (l *SSH) PrepareStart(ctx context.Context, targets []launcher.Target, spec launcher.RankSpec) ([]launcher.Proc, error) {
	started, err := l.prepare(ctx, targets, spec)
	if err != nil {
		return nil, err
	}
	procs := make([]launcher.Proc, len(targets))
	for i, t := range targets {
		p, ok := started[t.Rank]
		if !ok {
			return nil, fmt.Errorf("host %s rank %d: not started", t.Host, t.Rank)
		}
		procs[i] = p
	}
	return procs, nil
}

// prepare readies every target, starting its rank when spec is given,
// and returns the ranks started, by rank.
func (l *SSH) prepare(ctx context.Context, targets []launcher.Target, spec launcher.RankSpec) (map[int]*sshProc, error) {
	if err := l.init(targets); err != nil {
		return nil, err
	}
	begin := time.Now()
	groups := groupTargets(targets)
	var st placeStats
	if l.Tree && l.RemoteBin == "" {
		st.tree = newCopyTree(l.build.path, l.Advertise, l.Log, len(groups))
	}
	started, herrs := l.prepareAll(ctx, groups, &st, spec)
	st.tree.close()
	l.logPlacement(len(groups), time.Since(begin), &st)
	if len(herrs) > 0 {
		return nil, herrs
	}
	return started, nil
}

// init reads the configuration and inspects the binary once; a binary
// that cannot travel is refused before any node is contacted.
func (l *SSH) init(targets []launcher.Target) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("ssh launcher already closed")
	}
	if l.Log == nil {
		l.Log = launcher.NewLineWriter(io.Discard)
	}
	if l.res == nil {
		cfg, err := loadSSHConfig(l.ConfigFiles)
		if err != nil {
			return err
		}
		l.res = &resolver{cfg: cfg, home: l.Home, localUser: l.LocalUser, user: l.User}
		l.ids = &identities{explicit: l.Identities, home: l.Home, agentSock: l.AgentSocket}
		l.nodes = make(map[int]*sshNode)
	}
	if l.build == nil {
		b, err := inspectBinary(l.Binary, l.BinaryHash)
		if err != nil {
			return err
		}
		l.build = b
	}
	for _, t := range targets {
		if l.exeOf(t) == "" && l.build.dynamic {
			return errDynamicBuild
		}
	}
	return nil
}

// exeOf is the preinstalled binary for t, or "" to place this one.
func (l *SSH) exeOf(t launcher.Target) string {
	if t.Exe != "" {
		return t.Exe
	}
	return l.RemoteBin
}

// addresses gives each target the address its rank dials back.
func (l *SSH) addresses(targets []launcher.Target) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = l.addressOf(l.nodes[t.Rank].conn)
	}
	return out
}

// addressOf is the address at which c's node reaches this machine:
// Advertise, or this end of the connection.
func (l *SSH) addressOf(c *sshConn) string {
	if l.Advertise != "" {
		return l.Advertise
	}
	if a, ok := c.local.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ""
}

// node finds where a prepared rank runs.
func (l *SSH) node(t launcher.Target) (*sshNode, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.nodes[t.Rank]
	if !ok || l.closed {
		return nil, fmt.Errorf("host %s rank %d: not prepared (or launcher closed)", t.Host, t.Rank)
	}
	return n, nil
}

// Start implements Launcher.
func (l *SSH) Start(ctx context.Context, t launcher.Target, args []string, stdin []byte) (launcher.Proc, error) {
	n, err := l.node(t)
	if err != nil {
		return nil, err
	}
	p, err := startRank(n.conn, t, n.exe, args, stdin, l.Log, l.Grace)
	if err != nil {
		return nil, fmt.Errorf("host %s rank %d: start %s: %w", t.Host, t.Rank, n.exe, err)
	}
	l.trackProc(p)
	return p, nil
}

// Exec implements Launcher.
func (l *SSH) Exec(ctx context.Context, t launcher.Target, args []string) ([]byte, error) {
	n, err := l.node(t)
	if err != nil {
		return nil, err
	}
	out, err := n.conn.run(ctx, rankproto.ExecCommand(n.exe, args), nil)
	if err != nil {
		return out, fmt.Errorf("host %s: %s %s: %w", t.Host, n.exe, strings.Join(args, " "), err)
	}
	return out, nil
}

// Close implements Launcher: ranks still running are stopped, in parallel,
// then every connection is closed.
func (l *SSH) Close() error {
	l.mu.Lock()
	l.closed = true
	procs, conns := l.procs, l.conns
	l.procs, l.conns = nil, nil
	l.mu.Unlock()
	launcher.StopAll(procs)
	for _, c := range conns {
		c.close()
	}
	if l.ids != nil {
		l.ids.close()
	}
	return nil
}
