package sshlaunch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// sshProc is a rank running in an SSH session. Its standard input is the
// session's: sshd closes the rank's input when the session ends (no pty is
// asked for, so nothing else is in between), and the rank takes that as
// the coordinator's end.
type sshProc struct {
	launcher.ProcEnd
	conn  *sshConn
	sess  *ssh.Session
	in    io.WriteCloser
	pid   atomic.Int64 // the remote PID, once the start script has said it
	grace time.Duration
	once  sync.Once
}

// startRank starts `exe rank args...` on c, forwarding its standard error
// to log, and writes stdin to its input.
func startRank(c *sshConn, t launcher.Target, exe string, args []string, stdin []byte, log *launcher.LineWriter, grace time.Duration) (*sshProc, error) {
	sess, err := c.client.NewSession()
	if err != nil {
		return nil, c.sessionError(err)
	}
	in, out, errOut, err := c.pipedStart(sess, rankproto.RankCommand(exe, args))
	if err != nil {
		return nil, err
	}
	p := &sshProc{ProcEnd: launcher.NewProcEnd(), conn: c, sess: sess, in: in, grace: grace}
	go p.readPID(out)
	go func() {
		log.Forward(errOut, t.Host, t.Rank)
		p.end()
	}()
	if err := p.send(stdin); err != nil {
		return nil, err
	}
	return p, nil
}

// pipedStart starts cmd in sess with its three streams piped to this
// side; on failure the session is closed.
func (c *sshConn) pipedStart(sess *ssh.Session, cmd string) (io.WriteCloser, io.Reader, io.Reader, error) {
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	errOut, err3 := sess.StderrPipe()
	if err := firstError(err1, err2, err3); err != nil {
		sess.Close()
		return nil, nil, nil, c.sessionError(err)
	}
	if err := sess.Start(cmd); err != nil {
		sess.Close()
		return nil, nil, nil, c.sessionError(err)
	}
	return in, out, errOut, nil
}

// send writes the rank's launch input (the job secret, the address to
// dial); a rank that cannot take it is stopped.
func (p *sshProc) send(stdin []byte) error {
	if _, err := p.in.Write(stdin); err != nil {
		p.Stop()
		return fmt.Errorf("send job secret: %w", p.conn.sessionError(err))
	}
	return nil
}

// end waits for the rank's session to end, once its standard error has
// been read to the end, and records how it ended.
func (p *sshProc) end() {
	err := p.conn.exitError(p.sess.Wait())
	p.sess.Close()
	p.Finish(err)
}

// readPID takes the PID from the first line the start script prints, then
// drains the rest: unread output would hold back the session's flow
// control window, which stderr shares.
func (p *sshProc) readPID(out io.Reader) {
	br := bufio.NewReaderSize(out, 64)
	line, err := br.ReadString('\n')
	if err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && pid > 1 {
			p.pid.Store(int64(pid))
		}
	}
	_, _ = io.Copy(io.Discard, br)
}

// Stop closes the rank's input (it then aborts and removes its files),
// then asks sshd to deliver SIGTERM, then kills the rank by PID from a
// second session, for servers that ignore signal requests. Unlike
// stopChild's steps, these cross the network to a process that has no PID
// here. Should the session outlive all that, the connection itself is
// closed: by then the link is dead, and closing it is the only way left to
// end the wait.
//
// A connection that does not answer a keepalive while the rank is given
// its first chance is closed at once: no signal or kill could reach the
// node either, and waiting for them would hold the user for many seconds
// on a node whose link is down. The rank there, cut off from its
// coordinator too, stops by itself at its heartbeat timeout.
func (p *sshProc) Stop() {
	p.once.Do(func() {
		grace := launcher.GraceOr(p.grace)
		p.in.Close()
		answered := make(chan bool, 1)
		go func() { answered <- p.conn.answers(grace / 2) }()
		if p.Wait(grace / 2) {
			return
		}
		if !<-answered {
			p.conn.giveUp(fmt.Errorf("SSH connection to %s lost: no answer to a keepalive within %s", p.conn.name, grace/2))
			<-p.Done()
			return
		}
		_ = p.sess.Signal(ssh.SIGTERM)
		if p.Wait(grace / 2) {
			return
		}
		p.kill()
		if p.Wait(grace) {
			return
		}
		p.sess.Close()
		if p.Wait(grace) {
			return
		}
		p.conn.close()
	})
	<-p.Done()
}

// kill sends SIGKILL both ways: as a signal request and with kill(1).
func (p *sshProc) kill() {
	_ = p.sess.Signal(ssh.SIGKILL)
	pid := p.pid.Load()
	if pid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.grace+time.Second)
	defer cancel()
	_, _ = p.conn.run(ctx, rankproto.KillCommand(int(pid)), nil)
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
