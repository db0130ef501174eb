package sshlaunch

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/crypto/ssh"
)

// sessionCloseGrace is how long a session closed for a deadline or a
// signal may take to end before its whole connection is closed. sshd
// answers a client's close only once the remote command's output ends,
// and a login shell blocked in its start-up files (a ~/.bashrc reading a
// hung home) never ends it: waiting for it held a launch, and a Ctrl-C,
// for as long as that shell slept.
const sessionCloseGrace = 2 * time.Second

// abandon closes sess because ctx ended and, unless ended is closed (the
// waiter saw the session end) within sessionCloseGrace, closes the whole
// connection, which ends every wait on it at once. The connection's error
// then names the node and what was waited for.
func (c *sshConn) abandon(ctx context.Context, sess *ssh.Session, ended <-chan struct{}, what string) {
	sess.Close()
	t := time.NewTimer(sessionCloseGrace)
	defer t.Stop()
	select {
	case <-ended:
	case <-c.stop:
	case <-t.C:
		c.giveUp(fmt.Errorf("SSH connection to %s closed: %s did not end within %s of %v (a login shell blocked in its start-up files?)",
			c.name, what, sessionCloseGrace, context.Cause(ctx)))
	}
}

// watchSession arranges for abandon when ctx ends before stop is
// called. stop reports whether it came first (as context.AfterFunc's
// stop does) and must be called once the waits on sess are over, whatever
// their outcome, so that an abandoned session does not cost the
// connection after all.
func (c *sshConn) watchSession(ctx context.Context, sess *ssh.Session, what string) (stop func() bool) {
	ended := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() { c.abandon(ctx, sess, ended, what) })
	return func() bool {
		first := stopWatch()
		select {
		case <-ended:
		default:
			close(ended)
		}
		return first
	}
}
