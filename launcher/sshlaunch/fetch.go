package sshlaunch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/rankproto"
)

// fetchTimeout bounds one fetch from another node: 16 MiB take well under
// a second on a cluster network, and a server that stopped answering must
// not hold the node long before it gets its copy over SSH. Until a fetch
// from a kind of server (the coordinator, or nodes) has worked, its
// fetches get untriedTimeout: a firewall that drops the packets of those
// ports makes a connect hang, not fail, and the two fetches that rule a
// kind out should not hold a launch for long.
const (
	fetchTimeout   = 30 * time.Second
	untriedTimeout = 10 * time.Second
)

// fetch has the node take its copy from a server of the tree, and then
// serve it to others. Where the node has a quick start's session held,
// the fetch runs in it and the rank that session starts does the serving,
// so the node costs no session or process more; elsewhere a fetch session
// of its own fetches and then becomes the server. It reports false where
// the node must get its copy over SSH instead.
func (p *placement) fetch(ctx context.Context) (bool, error) {
	t, c := p.st.tree, p.conns[0]
	if t == nil || len(c.jumps) > 0 {
		return false, nil // behind a jump host: reached only through SSH
	}
	p.enter(fetching)
	s, err := t.acquire(ctx)
	if s == nil || err != nil {
		return false, err
	}
	var promise *servePromise
	if node, _ := c.client.RemoteAddr().(*net.TCPAddr); node != nil {
		promise = t.promiseServe(node.IP.String())
	}
	f, err := p.fetchFrom(ctx, s, promise)
	switch {
	case promise != nil && f.inHeld && err == nil: // a held fetch that failed says so
		// The rank the held session starts will serve: the promise
		// lasts until it answers (heldProbe.serve).
		p.held.promise = promise
		p.enter(serving)
	case promise != nil:
		// The node's server, if it started, is among the sources before
		// the promise goes (addNode below), so no count sees neither.
		defer promise.end()
	}
	return p.fetchEnded(ctx, s, f, err)
}

// fetchFrom runs the fetch from s: in the held session where the node
// has one alive, else in a session of its own that becomes the node's
// server when promise is given.
func (p *placement) fetchFrom(ctx context.Context, s *copySource, promise *servePromise) (fetched, error) {
	l, t, c := p.l, p.st.tree, p.conns[0]
	if p.held.alive() {
		answer, err := p.held.fetch(ctx, s.hostFor(c, l.Advertise), s.port, t.token, t.limit(s), l.connectTimeout(), l.build.size)
		return fetched{answer: answer, inHeld: true}, err
	}
	f, err := l.startFetch(ctx, c, s, t.token, promise != nil, t.limit(s))
	if promise != nil && f.port > 0 {
		f.host = promise.host
	}
	return f, err
}

// fetchEnded gives s's slot back as the fetch went, adds the node's
// server to the tree, and says whether the node has its copy; a fetch
// that failed for the server's sake is logged, and the copy goes over
// SSH.
func (p *placement) fetchEnded(ctx context.Context, s *copySource, f fetched, err error) (bool, error) {
	t, c := p.st.tree, p.conns[0]
	switch {
	case err == nil:
		t.release(s, true)
		if f.port > 0 {
			t.addNode(c.name, f.host, f.port, f.end)
			p.enter(serving)
		}
		return true, nil
	case f.answer == rankproto.NoTools:
		t.giveBack(s) // the node's shortcoming, not the server's
	case rankproto.IsUnsafe(f.answer):
		t.giveBack(s) // the server is fine; the node's cache is not
		return false, rankproto.UnsafeCacheError(f.answer)
	default:
		t.release(s, false)
	}
	if ctx.Err() != nil {
		return false, context.Cause(ctx)
	}
	p.l.Log.Printf("note: host %s: no copy from %s (%s); sending it over SSH\n", c.name, s.name, fetchFailure(err, f.answer))
	return false, nil
}

// fetched is how a fetch went: the script's first answer, whether it ran
// in the held session, and where the node now serves (port 0: it does
// not, and its fetch session has ended) with what ends that.
type fetched struct {
	answer string
	inHeld bool
	host   string
	port   int
	end    func()
}

// fetchSession is fetch.sh's session on a node.
type fetchSession struct {
	c      *sshConn
	sess   *ssh.Session
	in     io.WriteCloser
	lines  chan string // the script's output lines; closed at its end
	stderr *cappedBuffer
}

// startFetch runs the fetch script from s on c's node and reads its
// answers: "placed", then with serve "serving PORT" from the server it
// became. The token goes on the session's input twice, once for the
// fetch and once for the server; the input's end stops the server.
func (l *SSH) startFetch(ctx context.Context, c *sshConn, s *copySource, token string, serve bool, limit time.Duration) (fetched, error) {
	cmd := rankproto.FetchCommand(l.build.hash, s.hostFor(c, l.Advertise), s.port, serve, limit, l.build.size)
	fs, err := openFetch(ctx, c, cmd)
	if err != nil {
		return fetched{}, err
	}
	// Whatever the script prints past the answers read here (a chatty
	// login shell's lines, say) is drained, so the line reader ends.
	defer fs.drain()
	if _, err := io.WriteString(fs.in, token+"\n"+token+"\n"); err != nil {
		return fs.failed("", c.sessionError(err))
	}
	wait := limit + l.connectTimeout()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	answer, err := fs.next(ctx, timeout.C, wait)
	if err != nil || answer != rankproto.Placed {
		return fs.failed(answer, err)
	}
	if !serve {
		fs.end()
		return fetched{answer: answer}, nil
	}
	line, err := fs.next(ctx, timeout.C, wait)
	port, ok := rankproto.ParseServing(line)
	if err != nil || !ok {
		fs.end() // placed, but serving nothing: the copy is in place either way
		return fetched{answer: answer}, nil
	}
	return fetched{answer: answer, port: port, end: fs.end}, nil
}

// openFetch starts cmd in a new session of c and reads its output lines
// in the background.
func openFetch(ctx context.Context, c *sshConn, cmd string) (*fetchSession, error) {
	sess, err := c.newSession(ctx)
	if err != nil {
		return nil, err
	}
	fs := &fetchSession{c: c, sess: sess, stderr: &cappedBuffer{}, lines: make(chan string, 2)}
	sess.Stderr = fs.stderr
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	if err := firstError(err1, err2); err != nil {
		sess.Close()
		return nil, c.sessionError(err)
	}
	if err := sess.Start(cmd); err != nil {
		sess.Close()
		return nil, c.sessionError(err)
	}
	fs.in = in
	go func() {
		br := bufio.NewReaderSize(out, 256)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				close(fs.lines)
				return
			}
			fs.lines <- strings.TrimSpace(line)
		}
	}()
	return fs, nil
}

// next is the script's next line, waiting until timeout (of wait) or ctx
// ends.
func (fs *fetchSession) next(ctx context.Context, timeout <-chan time.Time, wait time.Duration) (string, error) {
	select {
	case line, ok := <-fs.lines:
		if !ok {
			return "", errors.New("the script ended without an answer")
		}
		return line, nil
	case <-timeout:
		return "", fmt.Errorf("no answer within %v", wait)
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// failed ends the session and says how it ended.
func (fs *fetchSession) failed(answer string, cause error) (fetched, error) {
	fs.in.Close()
	err := fs.c.exitError(endSession(fs.sess))
	if err == nil {
		err = cause
	}
	if err == nil { // the script ended well, with an answer that is not a copy
		err = fmt.Errorf("answer %q", answer)
	}
	return fetched{answer: answer}, fmt.Errorf("%v%s", err, stderrTail(fs.stderr.String()))
}

// end closes the session's input, which stops a server, and ends it.
func (fs *fetchSession) end() {
	fs.in.Close()
	_ = endSession(fs.sess)
}

// drain reads the rest of the script's lines in the background.
func (fs *fetchSession) drain() {
	go func() {
		for range fs.lines {
		}
	}()
}

// fetchFailure says in a few words why a fetch failed.
func fetchFailure(err error, answer string) string {
	switch {
	case answer == rankproto.NoTools:
		return "the node lacks bash or timeout"
	case err == nil:
		return fmt.Sprintf("unexpected answer %q", answer)
	}
	return err.Error()
}

// endSession waits a moment for a server whose input was closed to exit
// (it does at once, and sshd frees the session with it), then closes the
// session regardless: a node that does not answer must not hold up the
// launch, or a Ctrl-C. Its server ends on its own once sshd closes its
// input, at the latest when the connection goes.
// It returns how the session ended: Wait's error, nil when it ended well
// or did not end within that second.
func endSession(sess *ssh.Session) error {
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Second):
	}
	sess.Close()
	return err
}
