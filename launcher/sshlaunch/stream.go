package sshlaunch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/ssh"

	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// sshStream is the SSH side of a Stream.
type sshStream struct {
	in     io.WriteCloser
	out    io.Reader
	sess   *ssh.Session
	conn   *sshConn
	stderr *cappedBuffer
	what   string
	stop   chan struct{}
}

// Stream starts args on the node of a prepared target. The session ends
// when ctx does.
func (l *SSH) Stream(ctx context.Context, t launcher.Target, args []string) (*launcher.Stream, error) {
	n, err := l.node(t)
	if err != nil {
		return nil, err
	}
	c := n.conn
	sess, err := c.client.NewSession()
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", t.Host, c.sessionError(err))
	}
	s := &sshStream{sess: sess, conn: c, stderr: &cappedBuffer{}, stop: make(chan struct{}),
		what: fmt.Sprintf("host %s: %s %s", t.Host, n.exe, strings.Join(args, " "))}
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	sess.Stderr = s.stderr
	if err := firstError(err1, err2); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: %w", s.what, c.sessionError(err))
	}
	if err := sess.Start(rankproto.ExecCommand(n.exe, args)); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%s: %w", s.what, c.sessionError(err))
	}
	s.in, s.out = in, out
	go func() {
		select {
		case <-ctx.Done():
			c.abandon(ctx, sess, s.stop, "the streamed command")
		case <-s.stop:
		}
	}()
	return launcher.NewStream(in, out, s.close), nil
}

func (s *sshStream) close() error {
	defer close(s.stop)
	s.in.Close()
	// Unread output would hold the session open.
	go func() { _, _ = io.Copy(io.Discard, s.out) }()
	err := s.sess.Wait()
	s.sess.Close()
	if err != nil {
		return fmt.Errorf("%s: %w%s", s.what, s.conn.exitError(err), stderrTail(s.stderr.String()))
	}
	return nil
}
