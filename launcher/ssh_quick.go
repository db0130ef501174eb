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
	"time"

	"golang.org/x/crypto/ssh"
)

// quickStart starts t's rank from the node's cached copy in the session
// that finds it verified (quickScript), and returns the rank and the
// node's home directory. When the node has no stamped copy, the same
// session probes the node instead, and quickStart returns no rank but the
// probe's answer in that session, held open: place goes on from the
// answer, and the held session then starts the rank once the copy is in
// place (heldProbe.start). Either way the node costs one session fewer
// than a probe, a copy and a rank's.
func (l *SSH) quickStart(ctx context.Context, c *sshConn, t Target, args []string, stdin []byte) (*sshProc, string, *heldProbe, error) {
	pctx, cancel := l.probeContext(ctx)
	defer cancel()
	sess, err := c.newSession(pctx)
	if err != nil {
		return nil, "", nil, err
	}
	// Until the session is a rank's or a held probe's, nothing ends it
	// but pctx: a node that hangs (a home on a dead NFS server) is cut
	// off, its connection too if the session will not end (abandon). The
	// watch starts before the command does: sshd's answer to the start
	// may never come either.
	stopWatch := c.watchSession(pctx, sess, "the probe")
	in, out, errOut, err := c.pipedStart(sess, quickCommand(l.build.hash, l.build.unames, args))
	if err != nil {
		if !stopWatch() {
			return nil, "", nil, fmt.Errorf("probing the node: %w", context.Cause(pctx))
		}
		return nil, "", nil, err
	}
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
		p := rankInSession(c, sess, in, held, stderrDone, pid, l.Grace)
		drainOutput(br)
		if err := p.send(stdin); err != nil {
			return nil, "", nil, err
		}
		return p, home, nil, nil
	}
	// A probe of the cached copy answers four lines, then waits.
	var answer string
	if first == "probe" && readErr == nil {
		answer, readErr = readLines(br, 4)
		if readErr == nil {
			if !stopWatch() {
				sess.Close()
				return nil, "", nil, fmt.Errorf("probing the node: %w", context.Cause(pctx))
			}
			ans, err := parseProbe([]byte(answer), 1)
			if err != nil {
				sess.Close()
				return nil, "", nil, err
			}
			return nil, "", &heldProbe{ans: ans, conn: c, sess: sess, in: in, out: br, held: held,
				stderrDone: stderrDone, stdin: stdin, timeout: l.probeTimeout(), grace: l.Grace}, nil
		}
	}
	// Anything else ends the session at once, since a rank may be waiting
	// behind it; a probe cut short is read to its end.
	if first != "probe" {
		sess.Close()
	}
	rest := cappedBuffer{}
	rest.Write([]byte(answer))
	_, _ = io.Copy(&rest, br)
	<-stderrDone
	waitErr := sess.Wait()
	sess.Close()
	if !stopWatch() {
		return nil, "", nil, fmt.Errorf("probing the node: %w", context.Cause(pctx))
	}
	if waitErr != nil && (first == "" || first == "probe") {
		return nil, "", nil, fmt.Errorf("probing the node: %s%s", c.exitError(waitErr), stderrTail(held.text()))
	}
	return nil, "", nil, fmt.Errorf("probing the node: unexpected answer %q (is the login shell printing something?)",
		first+"\n"+rest.String())
}

// rankInSession makes the rank that quickScript started in sess (its
// "start" line read from out) a rank like any other: its standard error
// forwarded, its end recorded. Its output is the caller's to read or
// drain (drainOutput).
func rankInSession(c *sshConn, sess *ssh.Session, in io.WriteCloser, held *heldLines,
	stderrDone <-chan struct{}, pid int, grace time.Duration) *sshProc {
	p := &sshProc{procEnd: newProcEnd(), conn: c, sess: sess, in: in, grace: grace}
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

// heldProbe is a quick start's session that probed the node and waits to
// be told the copy is in place; meanwhile it fetches the copy (fetch) or
// probes again (probe) when asked, and its rank may serve the copy to
// other nodes (promiseServer, serve).
type heldProbe struct {
	ans        probeAnswer
	conn       *sshConn
	sess       *ssh.Session
	in         io.WriteCloser
	out        *bufio.Reader
	held       *heldLines
	stderrDone <-chan struct{}
	stdin      []byte // the rank's input, written once it has started
	timeout    time.Duration
	grace      time.Duration
	dead       bool // closed: the rank cannot start in it
	// Where the rank is to serve its copy (promiseServer): the tree that
	// counts it as promised, and the address nodes dial.
	tree      *copyTree
	serveHost string
}

// start has the held session start the rank from the copy now in place
// and then writes the rank's input to it.
func (h *heldProbe) start(ctx context.Context) (*sshProc, error) {
	if _, err := io.WriteString(h.in, "go\n"); err != nil {
		h.close()
		return nil, fmt.Errorf("starting the rank: %w", h.conn.sessionError(err))
	}
	sctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	stopWatch := h.conn.watchSession(sctx, h.sess, "the rank's start")
	line, err := h.out.ReadString('\n')
	if !stopWatch() {
		h.close()
		return nil, fmt.Errorf("starting the rank: %w", context.Cause(sctx))
	}
	line = strings.TrimSuffix(line, "\n")
	if pid, _, ok := startLine(line); ok && err == nil {
		p := rankInSession(h.conn, h.sess, h.in, h.held, h.stderrDone, pid, h.grace)
		if err := p.send(h.stdin); err != nil {
			h.unpromise()
			drainOutput(h.out)
			return nil, err
		}
		h.serve(ctx)
		return p, nil
	}
	if err != nil { // the script ended: say how, waiting a moment for its status
		werr := endSession(h.sess)
		h.close()
		how := "without an answer"
		if werr != nil {
			how = fmt.Sprintf("(%v)", h.conn.exitError(werr))
		}
		return nil, fmt.Errorf("starting the rank: the session ended %s%s", how, stderrTail(h.held.text()))
	}
	h.close()
	return nil, fmt.Errorf("starting the rank: unexpected answer %q", line)
}

// alive says whether h is a held session the node can still use: a fetch
// or probe that failed in it closed it.
func (h *heldProbe) alive() bool { return h != nil && !h.dead }

// close ends the held session without starting a rank: the script reads
// its input's end and exits.
func (h *heldProbe) close() {
	h.dead = true
	h.unpromise()
	h.in.Close()
	h.sess.Close()
}

// promiseServer has the rank this session starts serve its copy to other
// nodes of t, at host; t counts the server as promised (serveNext) until
// serve or close.
func (h *heldProbe) promiseServer(t *copyTree, host string) {
	h.tree, h.serveHost = t, host
}

// unpromise ends the tree's count of this node's server as promised.
func (h *heldProbe) unpromise() {
	if h.tree != nil {
		h.tree.endFetch()
		h.tree = nil
	}
}

// serve asks the rank just started to serve its copy (see the rank's
// watchInput) and, once it answers, adds it to the tree's servers; the
// tree tells it to stop when it closes. The answer is awaited in the
// background, so the node's slot of --ssh-fanout is not held for it; the
// tree counts the server as promised until then. A rank that does not
// answer in time serves no one. The rank's output is drained after its
// answer.
func (h *heldProbe) serve(ctx context.Context) {
	t, out, in := h.tree, h.out, h.in
	if t == nil {
		drainOutput(out)
		return
	}
	h.tree = nil // the promise is the goroutine's to end
	answer := make(chan string, 1)
	go func() {
		line, _ := out.ReadString('\n')
		answer <- strings.TrimSuffix(line, "\n")
		_, _ = io.Copy(io.Discard, out)
	}()
	stop := func() { _, _ = io.WriteString(in, "unserve\n") }
	if _, err := io.WriteString(in, "serve "+t.token+"\n"); err != nil {
		t.endFetch()
		return
	}
	name, host := h.conn.name, h.serveHost
	go func() {
		defer t.endFetch()
		var line string
		select {
		case line = <-answer:
		case <-time.After(serveAnswerWait):
			stop()
			return
		case <-ctx.Done():
			stop()
			return
		}
		port, err := strconv.Atoi(strings.TrimPrefix(line, "serving "))
		if err != nil || !strings.HasPrefix(line, "serving ") || port <= 0 {
			return
		}
		t.addNode(name, host, port, stop)
	}()
}

// serveAnswerWait bounds the wait for a rank's "serving PORT": it comes
// as soon as the rank has started and read its input (before it hashes
// its image), well within this on a loaded node; a rank slower than that
// serves no one.
const serveAnswerWait = 10 * time.Second

// probe has the held session probe the node's cached copy again and
// returns its answer. A session that fails to answer is closed (dead).
func (h *heldProbe) probe(ctx context.Context) (probeAnswer, error) {
	if _, err := io.WriteString(h.in, "probe\n"); err != nil {
		h.close()
		return probeAnswer{}, fmt.Errorf("probing the node: %w", h.conn.sessionError(err))
	}
	pctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	stopWatch := h.conn.watchSession(pctx, h.sess, "the probe")
	answer, err := readLines(h.out, 4)
	if err != nil {
		h.close()
		if !stopWatch() {
			return probeAnswer{}, fmt.Errorf("probing the node: %w", context.Cause(pctx))
		}
		return probeAnswer{}, fmt.Errorf("probing the node: the session ended%s", stderrTail(h.held.text()))
	}
	if !stopWatch() {
		h.close()
		return probeAnswer{}, fmt.Errorf("probing the node: %w", context.Cause(pctx))
	}
	ans, err := parseProbe([]byte(answer), 1)
	if err != nil {
		h.close()
	}
	return ans, err
}

// fetch has the held session place the copy streamed from host:port (see
// quickTail), within limit for the stream and cut at size bytes, and returns the script's
// answer: "placed" when the copy is in place. A session that fails to
// answer in time is closed (dead): the node's rank then needs a session
// of its own.
func (h *heldProbe) fetch(ctx context.Context, host string, port int, token string, limit, connect time.Duration, size int64) (string, error) {
	secs := strconv.Itoa(max(int(limit/time.Second), 1))
	line := "fetch " + host + " " + strconv.Itoa(port) + " " + secs + " " + strconv.FormatInt(size, 10)
	if _, err := io.WriteString(h.in, line+"\n"+token+"\n"); err != nil {
		h.close()
		return "", h.conn.sessionError(err)
	}
	fctx, cancel := context.WithTimeoutCause(ctx, limit+connect, fmt.Errorf("no answer within %v", limit+connect))
	defer cancel()
	stopWatch := h.conn.watchSession(fctx, h.sess, "the fetch of the copy")
	var answer string
	var said []string // the script's other lines: its errors
	for {
		line, err := h.out.ReadString('\n')
		if err != nil {
			h.close()
			if !stopWatch() {
				return answer, context.Cause(fctx)
			}
			return answer, fmt.Errorf("the session ended%s", stderrTail(strings.Join(said, "\n")))
		}
		line = strings.TrimSuffix(line, "\n")
		status, ok := strings.CutPrefix(line, "fetched ")
		if !ok {
			if answer == "" && (line == "placed" || line == "notools" || strings.HasPrefix(line, "unsafe ")) {
				answer = line
			} else if len(said) < maxHeldLines {
				said = append(said, line)
			}
			continue
		}
		if !stopWatch() {
			h.close()
			return answer, context.Cause(fctx)
		}
		switch {
		case status != "0":
			return answer, fmt.Errorf("exit status %s%s", status, stderrTail(strings.Join(said, "\n")))
		case answer == "":
			return "", fmt.Errorf("the script gave no answer%s", stderrTail(strings.Join(said, "\n")))
		case answer != "placed": // the node's shortcoming (notools, unsafe): fetch says which
			return answer, fmt.Errorf("answer %q", answer)
		}
		return answer, nil
	}
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
