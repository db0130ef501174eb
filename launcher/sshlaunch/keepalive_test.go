package sshlaunch

import (
	"context"
	"fmt"
	"io"
	"ioswarm/launcher"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

// A link that stops carrying anything is noticed by the keepalives: the
// rank's session ends within about the connect timeout, saying why.
func TestSSHKeepaliveEndsSessionsOnDeadLink(t *testing.T) {
	s := newTestServer(t)
	px := newPausingProxy(t, s.addr)
	var log testio.LockedBuffer
	l := testSSH(t, s, writeFakeRank(t), &log)
	l.ConnectTimeout = 400 * time.Millisecond
	tg := launcher.Target{Rank: 0, Host: "127.0.0.1", Port: px.port}
	// The proxy's port is not the server's: tell known_hosts it is the same host.
	line := fmt.Sprintf("[127.0.0.1]:%d %s", px.port, authorized(s.hostKey.PublicKey()))
	os.WriteFile(s.known, []byte(line), 0o600)
	mustPrepare(t, l, tg)
	p, err := l.Start(context.Background(), tg, nil, []byte("ab\n"))
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, &log, "secret ab")
	px.paused.Store(true)
	waitProcDone(t, p, 10*time.Second)
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "keepalive") {
		t.Errorf("rank on a dead link ended with %v, want the keepalive named", err)
	}
	px.paused.Store(false)
}

// pausingProxy forwards TCP to a server and can stop forwarding, as a link
// that goes dead without a reset.
type pausingProxy struct {
	port   int
	paused atomic.Bool
}

func newPausingProxy(t *testing.T, to string) *pausingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &pausingProxy{port: ln.Addr().(*net.TCPAddr).Port}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); px.pipe(up, c) }()
			go func() { defer wg.Done(); px.pipe(c, up) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return px
}

func (px *pausingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for px.paused.Load() {
			time.Sleep(10 * time.Millisecond)
		}
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			dst.Close()
			return
		}
	}
}
