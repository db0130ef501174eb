package sshlaunch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshConn is one SSH connection to a node, through its ProxyJump hosts.
type sshConn struct {
	name   string        // the node as the host list names it
	client *ssh.Client   // the node
	jumps  []*ssh.Client // hops before it, first first
	local  net.Addr      // this machine's end of the first TCP connection

	mu        sync.Mutex
	lost      error // why the keepalive gave up, once it has
	closeOnce sync.Once
	stop      chan struct{}
}

// dial connects to a node along rt. The TCP connections, handshakes and
// logins of every hop together must finish within timeout: a node whose
// link is down has a cached ARP entry and would otherwise wait for the
// kernel's TCP timeout, minutes.
func (l *SSH) dial(ctx context.Context, name string, rt route) (*sshConn, error) {
	ctx, cancel := context.WithTimeout(ctx, l.connectTimeout())
	defer cancel()
	hops := append(append([]hop{}, rt.Jumps...), rt.Node)
	d := net.Dialer{KeepAlive: 15 * time.Second}
	tcp, err := d.DialContext(ctx, "tcp", hops[0].Addr)
	if err != nil {
		return nil, l.dialError(ctx, hops[0], err)
	}
	c := &sshConn{name: name, local: tcp.LocalAddr(), stop: make(chan struct{})}
	var conn net.Conn = tcp
	for i, h := range hops {
		if i > 0 {
			if conn, err = c.jumps[i-1].DialContext(ctx, "tcp", h.Addr); err != nil {
				c.close()
				return nil, l.dialError(ctx, h, fmt.Errorf("through %s: %w", hops[i-1].Alias, err))
			}
		}
		client, err := l.handshake(ctx, conn, h)
		if err != nil {
			conn.Close()
			c.close()
			return nil, err
		}
		if i < len(hops)-1 {
			c.jumps = append(c.jumps, client)
		} else {
			c.client = client
		}
	}
	go c.keepalive(l.connectTimeout())
	return c, nil
}

// dialError names the timeout when that is what ended the attempt. The
// dialer may report its own "i/o timeout" a moment before ctx notices its
// deadline, so both are taken as the timeout.
func (l *SSH) dialError(ctx context.Context, h hop, err error) error {
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("connect to %s: no answer within %s (--connect-timeout)", h.Addr, l.connectTimeout())
	}
	return fmt.Errorf("connect to %s: %w", h.Addr, err)
}

// handshake runs the SSH handshake and login on conn. x/crypto takes no
// context, and a connection through a jump host has no deadlines, so the
// connection is closed when ctx ends, which ends the handshake.
func (l *SSH) handshake(ctx context.Context, conn net.Conn, h hop) (*ssh.Client, error) {
	cfg, tried, err := l.clientConfig(h)
	if err != nil {
		return nil, err
	}
	type result struct {
		c     ssh.Conn
		chans <-chan ssh.NewChannel
		reqs  <-chan *ssh.Request
		err   error
	}
	done := make(chan result, 1)
	go func() {
		c, chans, reqs, err := ssh.NewClientConn(conn, h.KeyName, cfg)
		done <- result{c, chans, reqs, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		conn.Close()
		<-done
		return nil, l.dialError(ctx, h, ctx.Err())
	}
	if r.err != nil {
		return nil, loginError(h, tried, r.err)
	}
	return ssh.NewClient(r.c, r.chans, r.reqs), nil
}

// clientConfig is the login as h and the check of its host key; tried
// describes the keys offered, for the message when none is accepted.
func (l *SSH) clientConfig(h hop) (*ssh.ClientConfig, string, error) {
	check, algos, err := l.keys.callback(h)
	if err != nil {
		return nil, "", err
	}
	signers, tried, err := l.ids.signers(h)
	if err != nil {
		return nil, "", err
	}
	return &ssh.ClientConfig{
		User:              h.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signers...)},
		HostKeyCallback:   check,
		HostKeyAlgorithms: algos,
	}, tried, nil
}

// loginError turns x/crypto's handshake errors into what the user can act
// on; a host key error is already phrased for the user.
func loginError(h hop, tried string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "ssh: handshake failed: ")
	if strings.Contains(msg, "unable to authenticate") {
		return fmt.Errorf("log in to %s as %s: no key was accepted (offered: %s)", h.Addr, h.User, tried)
	}
	if strings.Contains(msg, "host key") || strings.Contains(msg, "HOST KEY") {
		return errors.New(msg)
	}
	return fmt.Errorf("SSH handshake with %s: %s", h.Addr, msg)
}

// keepalive asks the node for an answer every third of timeout; with no
// answer within timeout the connection is closed, which ends every session
// on it, so a dead link is noticed even while nothing else is sent.
func (c *sshConn) keepalive(timeout time.Duration) {
	tick := time.NewTicker(max(timeout/3, 200*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		select {
		case <-c.stop:
			return
		case err := <-answered:
			if err != nil {
				return // closed: the sessions say why
			}
		case <-time.After(timeout):
			c.giveUp(fmt.Errorf("SSH connection to %s lost: no answer to keepalives within %s", c.name, timeout))
			return
		}
	}
}

// answers reports whether the node answers a keepalive within d.
func (c *sshConn) answers(d time.Duration) bool {
	answered := make(chan error, 1)
	go func() {
		_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
		answered <- err
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-answered:
		return err == nil
	case <-t.C:
		return false
	}
}

// giveUp closes a connection that no longer answers, keeping why for the
// errors of the sessions it ends.
func (c *sshConn) giveUp(why error) {
	c.mu.Lock()
	if c.lost == nil {
		c.lost = why
	}
	c.mu.Unlock()
	c.close()
}

// lostErr says why the connection was given up, or nil.
func (c *sshConn) lostErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// close ends the connection and its jumps, node first.
func (c *sshConn) close() {
	c.closeOnce.Do(func() {
		close(c.stop)
		if c.client != nil {
			c.client.Close()
		}
		for i := len(c.jumps) - 1; i >= 0; i-- {
			c.jumps[i].Close()
		}
	})
}
