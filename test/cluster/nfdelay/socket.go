package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// recvBuffer is the socket's receive buffer. Every queued packet costs a
// message of a few hundred bytes; a burst that overflows the buffer is not
// lost (the queue is fail-open, so the kernel passes what it cannot hand
// over), but it goes undelayed.
const recvBuffer = 4 << 20

// conn is a netlink socket bound to one NFQUEUE queue. The socket is
// non-blocking and registered with Go's poller, so a read waits without
// holding a thread and a deadline can interrupt it.
type conn struct {
	f     *os.File
	rc    syscall.RawConn
	queue uint16
}

// dial opens a NETLINK_NETFILTER socket in the current network namespace.
func dial(queue uint16) (*conn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_NETFILTER)
	if err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netlink bind: %w", err)
	}
	// FORCE lifts the rmem_max cap, which root may do; a failure only
	// leaves the default buffer, so it is not fatal.
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, recvBuffer)
	f := os.NewFile(uintptr(fd), "nfqueue")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	return &conn{f: f, rc: rc, queue: queue}, nil
}

func (c *conn) Close() error { return c.f.Close() }

// send writes one message to the kernel.
func (c *conn) send(msg []byte) error {
	var serr error
	err := c.rc.Write(func(fd uintptr) bool {
		serr = unix.Sendto(int(fd), msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
		return serr != unix.EAGAIN
	})
	if err != nil {
		return err
	}
	return serr
}

// recv reads one datagram, waiting for it unless the read deadline passed.
func (c *conn) recv(buf []byte) (int, error) {
	var n int
	var rerr error
	err := c.rc.Read(func(fd uintptr) bool {
		n, _, rerr = unix.Recvfrom(int(fd), buf, 0)
		return rerr != unix.EAGAIN
	})
	if err != nil {
		return 0, err
	}
	return n, rerr
}

// recvNow reads one datagram if one is waiting; it never waits, and works
// after the read deadline has passed, so shutdown can drain the socket.
func (c *conn) recvNow(buf []byte) (int, error) {
	var n int
	var rerr error
	err := c.rc.Control(func(fd uintptr) {
		n, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
	})
	if err != nil {
		return 0, err
	}
	return n, rerr
}

// request sends a configuration message and waits for its answer. A
// packet that arrives meanwhile is accepted at once: nothing delays it yet.
func (c *conn) request(ctx context.Context, msg []byte, seq uint32) error {
	stop := context.AfterFunc(ctx, func() { c.f.SetReadDeadline(time.Now()) })
	defer stop()
	if err := c.send(msg); err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := c.recv(buf)
		if err != nil {
			return err
		}
		frames, err := parseFrames(buf[:n])
		if err != nil {
			return err
		}
		for _, f := range frames {
			switch {
			case f.packet:
				if err := c.accept(f.id); err != nil {
					return err
				}
			case f.seq == seq && f.errno != 0:
				return f.errno
			case f.seq == seq:
				return nil
			}
		}
	}
}

// bind takes the queue over, bounded to maxLen packets in the kernel.
func (c *conn) bind(ctx context.Context, maxLen uint32) error {
	const seq = 1
	err := c.request(ctx, bindMsg(seq, c.queue, maxLen), seq)
	switch {
	case errors.Is(err, unix.EBUSY):
		return fmt.Errorf("queue %d is bound by another process in this network namespace", c.queue)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("binding queue %d needs CAP_NET_ADMIN: %w", c.queue, err)
	case err != nil:
		return fmt.Errorf("binding queue %d: %w", c.queue, err)
	}
	return nil
}

// unbind hands the queue back; packets queued afterwards bypass it
// (--queue-bypass) or, without that option, are dropped by the kernel.
func (c *conn) unbind() error {
	const seq = 2
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.f.SetReadDeadline(time.Time{}); err != nil {
		return err
	}
	if err := c.request(ctx, unbindMsg(seq, c.queue), seq); err != nil {
		return fmt.Errorf("unbinding queue %d: %w", c.queue, err)
	}
	return nil
}

// accept gives one packet the verdict ACCEPT.
func (c *conn) accept(id uint32) error {
	if err := c.send(acceptMsg(c.queue, id)); err != nil {
		return fmt.Errorf("verdict for packet %d: %w", id, err)
	}
	return nil
}
