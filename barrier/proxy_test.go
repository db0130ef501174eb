package barrier

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// proxy relays TCP connections to a target. It records what clients send,
// so a test can replay a genuine handshake, and it can freeze: bytes are
// then read and dropped in both directions, which to both ends looks like
// a partitioned network or a stopped peer.
type proxy struct {
	ln     net.Listener
	target string
	frozen atomic.Bool

	mu    sync.Mutex
	sent  bytes.Buffer // client → target, all connections
	conns []net.Conn   // client side, target side, for each connection
	wmu   sync.Mutex   // one write to a client at a time (pipe, inject)
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) freeze() { p.frozen.Store(true) }

// recorded returns a copy of everything clients have sent so far.
func (p *proxy) recorded() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.sent.Bytes())
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		down, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = down.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, down, up)
		p.mu.Unlock()
		p.wg.Add(1)
		go p.relay(down, up)
	}
}

// relay copies both ways until both directions end, passing half-closes
// through so a goodbye followed by a hang-up looks the same as direct.
func (p *proxy) relay(down, up net.Conn) {
	defer p.wg.Done()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(up, down, true) }()
	go func() { defer wg.Done(); p.pipe(down, up, false) }()
	wg.Wait()
	_ = down.Close()
	_ = up.Close()
}

func (p *proxy) pipe(dst, src net.Conn, record bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.frozen.Load() {
			if record {
				p.mu.Lock()
				p.sent.Write(buf[:n])
				p.mu.Unlock()
			}
			if !record {
				p.wmu.Lock()
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
			if !record {
				p.wmu.Unlock()
			}
		}
		if err != nil && p.frozen.Load() {
			return // a partition passes no hang-up either
		}
		if errors.Is(err, io.EOF) {
			_ = dst.(*net.TCPConn).CloseWrite()
			return
		}
		if err != nil {
			_ = dst.Close()
			_ = src.Close()
			return
		}
	}
}

// inject writes b to the first client, between two of the target's
// writes, as an on-path host could.
func (p *proxy) inject(t *testing.T, b []byte) {
	t.Helper()
	p.mu.Lock()
	down := p.conns[0]
	p.mu.Unlock()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := down.Write(b); err != nil {
		t.Fatal(err)
	}
}

func (p *proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
