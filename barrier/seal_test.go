package barrier

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// scriptConn is a net.Conn that reads a fixed script of bytes and keeps
// what is written; deadlines are ignored. Fuzz targets drive transports
// through it without sockets or goroutines.
type scriptConn struct {
	net.Conn // nil: only the methods below are used
	in       *bytes.Reader
	out      bytes.Buffer
}

func newScriptConn(in []byte) *scriptConn { return &scriptConn{in: bytes.NewReader(in)} }

func (c *scriptConn) Read(p []byte) (int, error)       { return c.in.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error)      { return c.out.Write(p) }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
func (c *scriptConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(10, 0, 0, 9), Port: 4711}
}
func (c *scriptConn) LocalAddr() net.Addr                    { return &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 7000} }
func (c *scriptConn) SetKeepAlive(bool) error                { return nil }
func (c *scriptConn) SetKeepAlivePeriod(time.Duration) error { return nil }

var (
	testKeyA = bytes.Repeat([]byte{0xa5}, 32)
	testKeyB = bytes.Repeat([]byte{0x5a}, 32)
)

// sealedFrames writes frames through a transport sealed with (send key
// a, receive key b) and returns the bytes on the wire.
func sealedFrames(frames ...[]byte) []byte {
	c := newScriptConn(nil)
	t := newTransport(c)
	t.seal(testKeyA, testKeyB)
	for _, f := range frames {
		if err := t.write(f[0], f[1:]); err != nil {
			panic(err)
		}
	}
	return c.out.Bytes()
}

// readSealed reads every frame of wire with a transport that expects the
// peer's key a, stopping at the first error.
func readSealed(wire []byte, limit uint32) (frames [][]byte, consumed []int, err error) {
	c := newScriptConn(wire)
	t := newTransport(c)
	t.max = limit
	t.seal(testKeyB, testKeyA)
	for {
		typ, body, err := t.read()
		if err != nil {
			return frames, consumed, err
		}
		frames = append(frames, append([]byte{typ}, body...))
		consumed = append(consumed, len(wire)-c.in.Len())
	}
}

func TestSealedRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("records "), 3*ioChunk/8+5) // several write chunks
	in := [][]byte{{msgHeartbeat}, append([]byte{msgReply}, `{"id":1}`...), append([]byte{msgNote}, big...)}
	wire := sealedFrames(in...)
	if len(wire) != 3*(headerLen+tagLen)+len(`{"id":1}`)+len(big) {
		t.Fatalf("%d bytes on the wire", len(wire))
	}
	got, _, err := readSealed(wire, MaxFrame)
	if !errors.Is(err, io.EOF) || len(got) != 3 {
		t.Fatalf("read %d frames, then %v", len(got), err)
	}
	for i := range in {
		if !bytes.Equal(got[i], in[i]) {
			t.Errorf("frame %d: got %q", i, got[i][:min(40, len(got[i]))])
		}
	}
}

// Every single-bit change anywhere in a sealed frame is caught: in the
// length (a truncated or overlong frame), the type, the body or the tag.
func TestSealedFrameTamperingFails(t *testing.T) {
	wire := sealedFrames(append([]byte{msgReply}, `{"id":7,"body":{"bytes":123456}}`...))
	for i := range wire {
		for bit := range 8 {
			bad := bytes.Clone(wire)
			bad[i] ^= 1 << bit
			if frames, _, _ := readSealed(bad, MaxFrame); len(frames) > 0 {
				t.Fatalf("flipping bit %d of byte %d: frame accepted", bit, i)
			}
		}
	}
}

// A frame replayed, reordered, dropped, reflected or injected unsealed
// fails, though each frame on its own is genuine.
func TestSealedStreamMisuseFails(t *testing.T) {
	one := []byte{msgReply, '1'}
	two := []byte{msgReply, '2'}
	wire := sealedFrames(one, two)
	n := headerLen + 1 + tagLen
	f1, f2 := wire[:n], wire[n:]
	cases := map[string][]byte{
		"replayed":  append(bytes.Clone(f1), f1...),
		"reordered": append(bytes.Clone(f2), f1...),
		"dropped":   bytes.Clone(f2),
		"unsealed":  frameBytes(msgReply, []byte("1")),
	}
	for name, w := range cases {
		frames, _, err := readSealed(w, MaxFrame)
		want := 0
		if name == "replayed" {
			want = 1 // the first copy is genuine
		}
		if len(frames) != want || err == nil || (name != "unsealed" && !errors.Is(err, errForged)) {
			t.Errorf("%s: %d frames accepted, then %v", name, len(frames), err)
		}
	}
	// Reflected: a frame sealed for the other direction.
	c := newScriptConn(wire)
	tr := newTransport(c)
	tr.seal(testKeyA, testKeyB) // reads with key b: the direction it did not come from
	if _, _, err := tr.read(); !errors.Is(err, errForged) {
		t.Errorf("reflected frame: %v", err)
	}
}

// tamperProxy relays one connection and lets the test write into the
// stream towards the rank, as an on-path host could.
func TestInjectedFrameEndsSession(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(1, &fakerank.Log{}))
	p := startProxy(t, c.Addr().String())
	var mu sync.Mutex
	var kinds []string
	m, err := Dial(context.Background(), p.addr(), testHello(0), testSecret(), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	fakerank.Serve(t, m, 0, func(_ int, r *Request) (any, error) {
		mu.Lock()
		kinds = append(kinds, r.Kind)
		mu.Unlock()
		return r.Body, nil
	})
	join(t, c)
	callEcho(t, c, 0)
	// An unsealed request, framed as the protocol's first version did.
	forged := frameBytes(msgRequest, []byte(`{"id":99,"kind":"evil","body":{}}`))
	p.inject(t, forged)
	waitClosed(t, m.Done(), "the rank's session ending on a forged frame")
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "protocol error: request: frame failed authentication") {
		t.Errorf("rank session ended with %v", err)
	}
	waitClosed(t, c.Failed(), "the coordinator noticing the rank gone")
	mu.Lock()
	defer mu.Unlock()
	for _, k := range kinds {
		if k == "evil" {
			t.Fatal("the forged request reached the rank's handler")
		}
	}
}
