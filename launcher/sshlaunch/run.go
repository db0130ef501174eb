package sshlaunch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/ssh"
)

// maxCommandOutput caps what run keeps of a command's output: the commands run
// this way print a few lines, and a runaway one must not fill memory.
const maxCommandOutput = 1 << 20

// run runs one command line on the connection to completion, feeding it
// stdin (nil for none), and returns its standard output. The error carries
// the tail of its standard error. When ctx ends first, the session is
// closed, and its connection if that does not end the wait (abandon).
func (c *sshConn) run(ctx context.Context, cmd string, stdin io.Reader) ([]byte, error) {
	sess, err := c.newSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var stdout, stderr cappedBuffer
	sess.Stdout, sess.Stderr, sess.Stdin = &stdout, &stderr, stdin
	stopWatch := c.watchSession(ctx, sess, "the remote command")
	defer stopWatch()
	if err := sess.Start(cmd); err != nil {
		if stopWatch() {
			return nil, c.sessionError(err)
		}
		return nil, fmt.Errorf("%s: %w", c.name, context.Cause(ctx))
	}
	if err = sess.Wait(); !stopWatch() {
		return stdout.Bytes(), fmt.Errorf("%s: %w", c.name, context.Cause(ctx))
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("%s%s", c.exitError(err), stderrTail(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// newSession opens a session, giving up when ctx ends: opening waits for
// the node's answer, which a node whose link is down never sends. A
// session that opens after all is closed at once.
func (c *sshConn) newSession(ctx context.Context) (*ssh.Session, error) {
	type opened struct {
		sess *ssh.Session
		err  error
	}
	ch := make(chan opened, 1)
	go func() {
		sess, err := c.client.NewSession()
		ch <- opened{sess, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, c.sessionError(o.err)
		}
		return o.sess, nil
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.sess != nil {
				o.sess.Close()
			}
		}()
		return nil, fmt.Errorf("%s: opening an SSH session: %w", c.name, context.Cause(ctx))
	}
}

// sessionError explains a failure to open or start a session: most often
// the connection is gone.
func (c *sshConn) sessionError(err error) error {
	if lost := c.lostErr(); lost != nil {
		return lost
	}
	return fmt.Errorf("SSH session on %s: %w", c.name, err)
}

// exitError says how a remote command ended, in the words of a local
// process's end ("exit status 1", "killed by signal KILL").
func (c *sshConn) exitError(err error) error {
	var ee *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.Signal() != "":
		return fmt.Errorf("killed by signal %s", ee.Signal())
	case errors.As(err, &ee):
		return fmt.Errorf("exit status %d", ee.ExitStatus())
	case errors.As(err, &missing), errors.Is(err, io.EOF):
		if lost := c.lostErr(); lost != nil {
			return lost
		}
		return fmt.Errorf("the SSH session to %s ended without an exit status (connection lost)", c.name)
	}
	return c.sessionError(err)
}

// stderrTail formats the last lines of a command's standard error for an error
// message.
func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return ": " + strings.Join(lines, "; ")
}

// cappedBuffer is a buffer that keeps the first maxCommandOutput bytes and drops the
// rest, reporting every write as complete so the command is not blocked.
type cappedBuffer struct{ b bytes.Buffer }

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxCommandOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) Bytes() []byte  { return c.b.Bytes() }
func (c *cappedBuffer) String() string { return c.b.String() }
