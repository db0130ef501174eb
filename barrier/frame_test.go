package barrier

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// bufConn is a net.Conn that appends writes to a buffer; failAfter, when
// positive, breaks the connection after that many bytes, mid-frame.
type bufConn struct {
	net.Conn  // nil: only the methods below are used
	buf       bytes.Buffer
	failAfter int
	closed    chan struct{}
}

var errBroken = errors.New("connection broke mid-frame")

func newBufConn(failAfter int) *bufConn {
	return &bufConn{failAfter: failAfter, closed: make(chan struct{})}
}

func (c *bufConn) Write(p []byte) (int, error) {
	if c.failAfter > 0 && c.buf.Len()+len(p) > c.failAfter {
		n := c.failAfter - c.buf.Len()
		c.buf.Write(p[:n])
		return n, errBroken
	}
	return c.buf.Write(p)
}

// Read blocks until Close, like a peer that never speaks.
func (c *bufConn) Read([]byte) (int, error) {
	<-c.closed
	return 0, net.ErrClosed
}

func (c *bufConn) Close() error {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
	return nil
}

func (c *bufConn) SetDeadline(time.Time) error      { return nil }
func (c *bufConn) SetReadDeadline(time.Time) error  { return nil }
func (c *bufConn) SetWriteDeadline(time.Time) error { return nil }

func frameBytes(typ byte, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)+1))
	return append(append(b, typ), body...)
}

func TestFrameRoundTrip(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	big := bytes.Repeat([]byte("0123456789abcdef"), 20_000) // 320 KB: several write chunks
	bodies := [][]byte{nil, []byte(`{"a":1}`), big}
	c := newBufConn(0)
	tr := newTransport(c)
	tr.wait = time.Second
	for i, b := range bodies {
		if err := tr.write(byte(i+1), b); err != nil {
			t.Fatal(err)
		}
	}
	if tr.lastWrite.Load() == 0 {
		t.Error("lastWrite not recorded")
	}
	r := bytes.NewReader(c.buf.Bytes())
	for i, want := range bodies {
		typ, got, err := readFrame(r, MaxFrame)
		if err != nil || typ != byte(i+1) || !bytes.Equal(got, want) {
			t.Fatalf("frame %d: type %d, %d bytes, err %v", i, typ, len(got), err)
		}
	}
	if _, _, err := readFrame(r, MaxFrame); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func TestReadFrameLimitsAndMalformed(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	atCap := frameBytes(msgHello, make([]byte, preAuthFrame-1))
	overCap := frameBytes(msgHello, make([]byte, preAuthFrame))
	cases := []struct {
		name string
		in   []byte
		want string // "" = success
	}{
		{"at the pre-auth cap", atCap, ""},
		{"over the pre-auth cap", overCap, "frame of 4097 bytes exceeds the 4096-byte limit"},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff, 1}, "frame of 4294967295 bytes exceeds"},
		{"zero length", []byte{0, 0, 0, 0, 1}, "zero length"},
		{"truncated header", []byte{0, 0, 0}, "header truncated"},
		{"truncated body", append([]byte{0, 0, 0, 100, 1}, "short"...), "truncated after 5 of 99 bytes"},
	}
	for _, tc := range cases {
		_, _, err := readFrame(bytes.NewReader(tc.in), preAuthFrame)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestReadFrameAllocatesAsDataArrives claims a frame just under MaxFrame
// but sends 10 bytes: the reader must fail having allocated little.
func TestReadFrameAllocatesAsDataArrives(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	in := append(binary.BigEndian.AppendUint32(nil, MaxFrame), msgReply)
	in = append(in, "0123456789"...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := readFrame(bytes.NewReader(in), MaxFrame)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a truncated frame was accepted")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("reading 10 bytes of a frame allocated %d bytes", grew)
	}
}

func TestWriteRefusesOversizedFrame(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := newBufConn(0)
	err := newTransport(c).write(msgReply, make([]byte, MaxFrame))
	if err == nil || !strings.Contains(err.Error(), "exceeds") || c.buf.Len() != 0 {
		t.Fatalf("err %v, %d bytes written", err, c.buf.Len())
	}
}

// TestWriterFailsMidFrame breaks the connection inside a small and inside a
// chunked frame: the write reports the error instead of hanging.
func TestWriterFailsMidFrame(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	for _, size := range []int{100, 3 * ioChunk} {
		c := newBufConn(size / 2)
		err := newTransport(c).write(msgReply, make([]byte, size))
		if !errors.Is(err, errBroken) {
			t.Errorf("%d-byte frame: got %v", size, err)
		}
	}
}

// TestStalledWriterHitsDeadline writes into a pipe nobody reads: the
// session's write deadline ends the write.
func TestStalledWriterHitsDeadline(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tr := newTransport(a)
	if err := tr.startSession(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := tr.write(msgNote, []byte("{}")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write: %v", err)
	}
	_, _, err := tr.read()
	if msg := describeReadErr(err, 100*time.Millisecond); msg != "silent for more than 100ms (no heartbeat)" {
		t.Fatalf("read: %v described as %q", err, msg)
	}
}

// TestMemberBrokenConnection runs a rank session over a connection that
// breaks mid-frame: Notify fails, the session ends with the cause, and
// Close returns without hanging.
func TestMemberBrokenConnection(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := newBufConn(200)
	tr := newTransport(c)
	opt, err := DialOptions{Heartbeat: time.Hour - 1, Timeout: time.Hour}.normalise()
	if err != nil {
		t.Fatal(err)
	}
	m := startMember(t.Context(), tr, "fake:1", 4, opt)
	err = m.Notify("log", strings.Repeat("x", 1000))
	if !errors.Is(err, errBroken) {
		t.Fatalf("notify: %v", err)
	}
	waitClosed(t, m.Done(), "session end")
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "lost coordinator at fake:1: send note") {
		t.Fatalf("err: %v", err)
	}
	if err := m.Notify("log", "again"); !errors.Is(err, ErrClosed) {
		t.Fatalf("notify after the end: %v", err)
	}
	_ = m.Close()
}
