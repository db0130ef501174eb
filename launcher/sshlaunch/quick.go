package sshlaunch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// quickStart starts the group's first rank from the node's cached copy
// in the session that finds it verified (rankproto's quick.sh): p is then
// running. When the node has no stamped copy, the same session probes the
// node instead and is held open with the probe's answer (p.held, p still
// probing): place goes on from the answer, and the held session then
// starts the rank once the copy is in place (heldProbe.start). Either way
// the node costs one session fewer than a probe, a copy and a rank's.
func (p *placement) quickStart(ctx context.Context) error {
	l, c, t := p.l, p.conns[0], p.g[0]
	args, stdin := p.spec(t, l.addressOf(c))
	pctx, cancel := l.probeContext(ctx)
	defer cancel()
	q, err := l.openQuick(pctx, c, t, args)
	if err != nil {
		return err
	}
	first, readErr := q.out.ReadString('\n')
	first = strings.TrimSuffix(first, "\n")
	if pid, home, ok := rankproto.ParseStart(first); ok && readErr == nil && q.stopWatch() {
		rank := rankInSession(c, q.sess, q.in, q.held, q.stderrDone, pid, l.Grace)
		drainOutput(q.out)
		if err := rank.send(stdin); err != nil {
			return err
		}
		p.startedFromCache(rank, home)
		return nil
	}
	// A probe of the cached copy answers four lines, then waits.
	var answer string
	if first == rankproto.Probe && readErr == nil {
		if answer, readErr = readLines(q.out, rankproto.QuickProbeLines); readErr == nil {
			p.held, err = q.hold(pctx, answer, stdin, l.probeTimeout(), l.Grace)
			return err
		}
	}
	return q.refuse(pctx, first, answer)
}

// quickSession is quick.sh's session until its first answer is read.
type quickSession struct {
	c          *sshConn
	sess       *ssh.Session
	in         io.WriteCloser
	out        *bufio.Reader
	held       *heldLines
	stderrDone chan struct{}
	stopWatch  func() bool // ends the watch; false if pctx had ended the session
}

// openQuick starts quick.sh for t's rank with args in a new session of c.
// Until the session is a rank's or a held probe's, nothing ends it but
// pctx: a node that hangs (a home on a dead NFS server) is cut off, its
// connection too if the session will not end (abandon). The watch starts
// before the command does: sshd's answer to the start may never come
// either.
func (l *SSH) openQuick(pctx context.Context, c *sshConn, t launcher.Target, args []string) (*quickSession, error) {
	sess, err := c.newSession(pctx)
	if err != nil {
		return nil, err
	}
	stopWatch := c.watchSession(pctx, sess, "the probe")
	in, out, errOut, err := c.pipedStart(sess, rankproto.QuickCommand(l.build.hash, l.build.unames, args))
	if err != nil {
		if !stopWatch() {
			return nil, fmt.Errorf("probing the node: %w", context.Cause(pctx))
		}
		return nil, err
	}
	q := &quickSession{c: c, sess: sess, in: in, out: bufio.NewReaderSize(out, 4096), stopWatch: stopWatch,
		held: &heldLines{log: l.Log, host: t.Host, rank: t.Rank}, stderrDone: make(chan struct{})}
	go func() {
		q.held.read(errOut)
		close(q.stderrDone)
	}()
	return q, nil
}

// hold makes q, whose probe answered answer, a held session that will
// start the rank with stdin as its input.
func (q *quickSession) hold(pctx context.Context, answer string, stdin []byte, timeout, grace time.Duration) (*heldProbe, error) {
	if !q.stopWatch() {
		q.sess.Close()
		return nil, fmt.Errorf("probing the node: %w", context.Cause(pctx))
	}
	ans, err := rankproto.ParseProbe([]byte(answer), 1)
	if err != nil {
		q.sess.Close()
		return nil, err
	}
	return &heldProbe{ans: ans, conn: q.c, sess: q.sess, in: q.in, out: q.out, held: q.held,
		stderrDone: q.stderrDone, stdin: stdin, timeout: timeout, grace: grace}, nil
}

// refuse ends a session whose first answer was first (and, after a
// "probe", answer, cut short) and says why. Anything but a probe ends the
// session at once, since a rank may be waiting behind it; a probe cut
// short is read to its end.
func (q *quickSession) refuse(pctx context.Context, first, answer string) error {
	if first != rankproto.Probe {
		q.sess.Close()
	}
	rest := cappedBuffer{}
	rest.Write([]byte(answer))
	_, _ = io.Copy(&rest, q.out)
	<-q.stderrDone
	waitErr := q.sess.Wait()
	q.sess.Close()
	if !q.stopWatch() {
		return fmt.Errorf("probing the node: %w", context.Cause(pctx))
	}
	if waitErr != nil && (first == "" || first == rankproto.Probe) {
		return fmt.Errorf("probing the node: %s%s", q.c.exitError(waitErr), stderrTail(q.held.text()))
	}
	return fmt.Errorf("probing the node: unexpected answer %q (is the login shell printing something?)",
		first+"\n"+rest.String())
}

// rankInSession makes the rank that quick.sh started in sess (its
// "start" line read from out) a rank like any other: its standard error
// forwarded, its end recorded. Its output is the caller's to read or
// drain (drainOutput).
func rankInSession(c *sshConn, sess *ssh.Session, in io.WriteCloser, held *heldLines,
	stderrDone <-chan struct{}, pid int, grace time.Duration) *sshProc {
	p := &sshProc{ProcEnd: launcher.NewProcEnd(), conn: c, sess: sess, in: in, grace: grace}
	p.pid.Store(int64(pid))
	held.forward()
	go func() {
		<-stderrDone
		p.end()
	}()
	return p
}

// readLines reads n lines from r and returns them, newlines kept, with
// what it read of them before an error.
func readLines(r *bufio.Reader, n int) (string, error) {
	var b strings.Builder
	for range n {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			return b.String(), err
		}
	}
	return b.String(), nil
}

// drainOutput reads a rank's output to its end: unread output would hold
// back the session's flow control window, which stderr shares.
func drainOutput(out io.Reader) { go func() { _, _ = io.Copy(io.Discard, out) }() }

// heldLines holds a session's standard error until the session turns out
// to be a rank's, which forwards it line by line as every rank's is, or a
// probe's, whose error message takes its tail.
type heldLines struct {
	log  *launcher.LineWriter
	host string
	rank int

	mu    sync.Mutex
	lines []string
	fwd   bool
}

// read takes r's lines until it ends.
func (h *heldLines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		h.mu.Lock()
		if h.fwd {
			h.log.RankLine(h.host, h.rank, sc.Text())
		} else if len(h.lines) < rankproto.MaxHeldLines {
			h.lines = append(h.lines, sc.Text())
		}
		h.mu.Unlock()
	}
	// A line too long for the scanner must not stall the session.
	_, _ = io.Copy(io.Discard, r)
}

// forward sends what was held, and every line after it, to the log.
func (h *heldLines) forward() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, line := range h.lines {
		h.log.RankLine(h.host, h.rank, line)
	}
	h.lines, h.fwd = nil, true
}

// text is what was held.
func (h *heldLines) text() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.lines, "\n")
}
