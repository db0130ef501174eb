package launcher

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"
)

// quickStart starts t's rank from the node's cached copy in the session
// that finds it verified (quickScript), and returns the rank and the
// node's home directory. When the node has no stamped copy, the same
// session probes the node instead, and quickStart returns no rank but the
// probe's answer, for place to go on from. Either way the node costs one
// session where Prepare and Start cost two or three.
func (l *SSH) quickStart(ctx context.Context, c *sshConn, t Target, args []string, stdin []byte) (*sshProc, string, probeAnswer, error) {
	pctx, cancel := context.WithTimeout(ctx, l.probeTimeout())
	defer cancel()
	sess, err := c.newSession(pctx)
	if err != nil {
		return nil, "", probeAnswer{}, err
	}
	in, out, errOut, err := c.pipedStart(sess, quickCommand(l.build.hash, l.build.unames, args))
	if err != nil {
		return nil, "", probeAnswer{}, err
	}
	// Until the first line says what the session is, nothing ends it but
	// pctx: a node that hangs (a home on a dead NFS server) is cut off.
	stopWatch := context.AfterFunc(pctx, func() { sess.Close() })
	held := &heldLines{log: l.Log, host: t.Host, rank: t.Rank}
	stderrDone := make(chan struct{})
	go func() {
		held.read(errOut)
		close(stderrDone)
	}()
	br := bufio.NewReaderSize(out, 4096)
	first, readErr := br.ReadString('\n')
	first = strings.TrimSuffix(first, "\n")
	if pid, home, ok := startLine(first); ok && readErr == nil && stopWatch() {
		p := &sshProc{procEnd: newProcEnd(), conn: c, sess: sess, in: in, grace: l.Grace}
		p.pid.Store(int64(pid))
		held.forward()
		// Unread output would hold back the session's flow control
		// window, which stderr shares.
		go func() { _, _ = io.Copy(io.Discard, br) }()
		go func() {
			<-stderrDone
			p.end()
		}()
		if err := p.send(stdin); err != nil {
			return nil, "", probeAnswer{}, err
		}
		return p, home, probeAnswer{}, nil
	}
	// A probe: read it all, then the session's end. Any other answer ends
	// the session at once, since a rank may be waiting behind it.
	if first != "probe" {
		sess.Close()
	}
	var rest cappedBuffer
	_, _ = io.Copy(&rest, br)
	<-stderrDone
	waitErr := sess.Wait()
	sess.Close()
	if !stopWatch() {
		return nil, "", probeAnswer{}, fmt.Errorf("probing the node: %w", context.Cause(pctx))
	}
	if readErr == nil && first == "probe" {
		if waitErr != nil {
			return nil, "", probeAnswer{}, fmt.Errorf("probing the node: %s%s", c.exitError(waitErr), stderrTail(held.text()))
		}
		ans, err := parseProbe(rest.Bytes(), 1)
		return nil, "", ans, err
	}
	if waitErr != nil && first == "" {
		return nil, "", probeAnswer{}, fmt.Errorf("probing the node: %s%s", c.exitError(waitErr), stderrTail(held.text()))
	}
	return nil, "", probeAnswer{}, fmt.Errorf("probing the node: unexpected answer %q (is the login shell printing something?)",
		first+"\n"+rest.String())
}

// startLine parses quickScript's "start PID HOME".
func startLine(s string) (pid int, home string, ok bool) {
	f := strings.SplitN(s, " ", 3)
	if len(f) != 3 || f[0] != "start" || !path.IsAbs(f[2]) {
		return 0, "", false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 1 {
		return 0, "", false
	}
	return pid, f[2], true
}

// heldLines holds a session's standard error until the session turns out
// to be a rank's, which forwards it line by line as every rank's is, or a
// probe's, whose error message takes its tail.
type heldLines struct {
	log  *LineWriter
	host string
	rank int

	mu    sync.Mutex
	lines []string
	fwd   bool
}

// maxHeldLines bounds what a probe's standard error may hold in memory.
const maxHeldLines = 64

// read takes r's lines until it ends.
func (h *heldLines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		h.mu.Lock()
		if h.fwd {
			h.log.RankLine(h.host, h.rank, sc.Text())
		} else if len(h.lines) < maxHeldLines {
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
