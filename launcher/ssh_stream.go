package launcher

import (
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Stream is `<binary> args...` running on a node with its standard input
// and output connected to the caller, for exchanges that Exec's one-shot
// output cannot carry (the preflight times round trips through it).
type Stream struct {
	In  io.WriteCloser
	Out io.Reader

	sess   *ssh.Session
	conn   *sshConn
	stderr *cappedBuffer
	what   string
	stop   chan struct{}
}

// Stream starts args on the node of a prepared target. The session ends
// when ctx does.
func (l *SSH) Stream(ctx context.Context, t Target, args []string) (*Stream, error) {
	n, err := l.node(t)
	if err != nil {
		return nil, err
	}
	c := n.conn
	sess, err := c.client.NewSession()
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", t.Host, c.sessionError(err))
	}
	s := &Stream{sess: sess, conn: c, stderr: &cappedBuffer{}, stop: make(chan struct{}),
		what: fmt.Sprintf("host %s: %s %s", t.Host, n.exe, strings.Join(args, " "))}
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	sess.Stderr = s.stderr
	if err := firstError(err1, err2); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: %w", s.what, c.sessionError(err))
	}
	if err := sess.Start(execCommand(n.exe, args)); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: %w", s.what, c.sessionError(err))
	}
	s.In, s.Out = in, out
	go func() {
		select {
		case <-ctx.Done():
			sess.Close()
		case <-s.stop:
		}
	}()
	return s, nil
}

// Close ends the command's input and waits for it to exit; the error says
// how it ended, with the tail of its standard error.
func (s *Stream) Close() error {
	defer close(s.stop)
	s.In.Close()
	// Unread output would hold the session open.
	go func() { _, _ = io.Copy(io.Discard, s.Out) }()
	err := s.sess.Wait()
	s.sess.Close()
	if err != nil {
		return fmt.Errorf("%s: %w%s", s.what, s.conn.exitError(err), stderrTail(s.stderr.String()))
	}
	return nil
}
