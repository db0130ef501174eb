package sshlaunch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/rankproto"
)

// heldProbe is a quick start's session that probed the node and waits to
// be told the copy is in place; meanwhile it fetches the copy (fetch) or
// probes again (probe) when asked, and its rank may serve the copy to
// other nodes (promise, serve).
type heldProbe struct {
	ans        rankproto.ProbeAnswer
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
	// The node's promise to serve its copy, which the rank keeps (serve):
	// set by a fetch in this session that will serve (placement.fetch).
	promise *servePromise
}

// start has the held session start the rank from the copy now in place
// and then writes the rank's input to it.
func (h *heldProbe) start(ctx context.Context) (*sshProc, error) {
	if _, err := io.WriteString(h.in, rankproto.Go); err != nil {
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
	if pid, _, ok := rankproto.ParseStart(line); ok && err == nil {
		p := rankInSession(h.conn, h.sess, h.in, h.held, h.stderrDone, pid, h.grace)
		if err := p.send(h.stdin); err != nil {
			h.promise.end()
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
	h.promise.end()
	h.in.Close()
	h.sess.Close()
}

// serve asks the rank just started to serve its copy (see the rank's
// watchInput) and, once it answers, adds it to the tree's servers; the
// tree tells it to stop when it closes. The answer is awaited in the
// background, so the node's slot of --ssh-fanout is not held for it; the
// tree counts the server as promised until then. A rank that does not
// answer in time serves no one. The rank's output is drained after its
// answer.
func (h *heldProbe) serve(ctx context.Context) {
	promise, out, in := h.promise, h.out, h.in
	if promise == nil {
		drainOutput(out)
		return
	}
	h.promise = nil // the promise is the goroutine's to end
	answer := make(chan string, 1)
	go func() {
		line, _ := out.ReadString('\n')
		answer <- strings.TrimSuffix(line, "\n")
		_, _ = io.Copy(io.Discard, out)
	}()
	stop := func() { _, _ = io.WriteString(in, rankproto.Unserve) }
	if _, err := io.WriteString(in, rankproto.ServeRequest(promise.tree.token)); err != nil {
		promise.end()
		return
	}
	go h.awaitServing(ctx, promise, answer, stop)
}

// awaitServing adds the rank's server to the tree once it answers
// "serving PORT", and ends the promise either way; a rank that does not
// answer in time, or before ctx ends, is told to stop.
func (h *heldProbe) awaitServing(ctx context.Context, promise *servePromise, answer <-chan string, stop func()) {
	defer promise.end()
	var line string
	select {
	case line = <-answer:
	case <-time.After(rankproto.ServeAnswerWait):
		stop()
		return
	case <-ctx.Done():
		stop()
		return
	}
	if port, ok := rankproto.ParseServing(line); ok {
		promise.tree.addNode(h.conn.name, promise.host, port, stop)
	}
}

// probe has the held session probe the node's cached copy again and
// returns its answer. A session that fails to answer is closed (dead).
func (h *heldProbe) probe(ctx context.Context) (rankproto.ProbeAnswer, error) {
	if _, err := io.WriteString(h.in, rankproto.Probe+"\n"); err != nil {
		h.close()
		return rankproto.ProbeAnswer{}, fmt.Errorf("probing the node: %w", h.conn.sessionError(err))
	}
	pctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	stopWatch := h.conn.watchSession(pctx, h.sess, "the probe")
	answer, err := readLines(h.out, rankproto.QuickProbeLines)
	if err != nil {
		h.close()
		if !stopWatch() {
			return rankproto.ProbeAnswer{}, fmt.Errorf("probing the node: %w", context.Cause(pctx))
		}
		return rankproto.ProbeAnswer{}, fmt.Errorf("probing the node: the session ended%s", stderrTail(h.held.text()))
	}
	if !stopWatch() {
		h.close()
		return rankproto.ProbeAnswer{}, fmt.Errorf("probing the node: %w", context.Cause(pctx))
	}
	ans, err := rankproto.ParseProbe([]byte(answer), 1)
	if err != nil {
		h.close()
	}
	return ans, err
}

// fetch has the held session place the copy streamed from host:port (see
// rankproto's quick.sh), within limit for the stream and cut at size bytes, and returns the script's
// answer: "placed" when the copy is in place. A session that fails to
// answer in time is closed (dead): the node's rank then needs a session
// of its own.
func (h *heldProbe) fetch(ctx context.Context, host string, port int, token string, limit, connect time.Duration, size int64) (string, error) {
	if _, err := io.WriteString(h.in, rankproto.FetchRequest(host, port, limit, size, token)); err != nil {
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
		status, ok := rankproto.ParseFetched(line)
		if !ok {
			if answer == "" && rankproto.IsFetchAnswer(line) {
				answer = line
			} else if len(said) < rankproto.MaxHeldLines {
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
		case answer != rankproto.Placed: // the node's shortcoming (notools, unsafe): fetch says which
			return answer, fmt.Errorf("answer %q", answer)
		}
		return answer, nil
	}
}
