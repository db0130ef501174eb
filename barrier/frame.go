package barrier

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"ioswarm/clock"
)

const (
	// MaxFrame caps the length field of a frame once the peer is
	// authenticated: large enough for a phase's per-thread records, small
	// enough that a bug cannot make a peer allocate without bound.
	MaxFrame = 256 << 20
	// preAuthFrame caps every frame before authentication. A Hello or a
	// Challenge is a few hundred bytes; a stranger gets no more than this.
	preAuthFrame = 4 << 10
	// headerLen is the length prefix plus the type byte.
	headerLen = 5
	// ioChunk bounds each read allocation step and each write call, so a
	// lying length prefix costs memory only as data really arrives, and a
	// large frame moving steadily never trips the per-call deadline.
	ioChunk = 64 << 10
)

// transport carries frames over one TCP connection.
//
// Wire format. A frame is
//
//	length  4 bytes, big-endian: L, the number of bytes that follow
//	type    1 byte: one of the msg* constants (append-only)
//	body    JSON (encoding/json) for most types; raw bytes for the Hello
//	        (hello.go), the challenge and proof (HMAC-SHA256 values) and
//	        the clock probe (big-endian int64s)
//	tag     16 bytes, on every frame after the handshake (sealer): the
//	        MAC of the frame's sequence number, type and body under a key
//	        of this connection; absent during the handshake
//
// L = 0 is malformed. Before authentication L may be at most 4 KiB; after
// it, at most MaxFrame. A frame over the limit is an error and the
// connection is dropped; the length is checked before anything is
// allocated, and the body buffer grows only as bytes arrive. A sealed
// frame whose tag fails ends the session as a protocol error.
//
// Deadlines. During the handshake the caller sets one absolute deadline for
// the whole exchange, so a slow peer cannot stretch it. After it, every
// underlying read gets a fresh deadline of the session timeout (silence
// that long is a failure; heartbeats keep a healthy link busy), and every
// write call of at most ioChunk bytes gets one too.
//
// Writes are serialised by a mutex so frames never interleave; reads are
// done by one goroutine at a time.
type transport struct {
	conn net.Conn
	in   *idleReader
	r    *bufio.Reader
	max  uint32        // frame cap for reads; set before the reader starts
	wait time.Duration // per-write deadline in a session; 0 in handshake
	recv *sealer       // checks incoming tags once sealed; reader's own
	send *sealer       // tags outgoing frames once sealed; under wmu

	wmu       sync.Mutex
	lastWrite atomic.Int64 // clock.Now() of the last completed write
}

// idleReader refreshes the read deadline before every read once idle is
// set, turning the deadline into a bound on silence rather than on the
// length of a frame.
type idleReader struct {
	conn net.Conn
	idle time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	if r.idle > 0 {
		if err := r.conn.SetReadDeadline(time.Now().Add(r.idle)); err != nil {
			return 0, err
		}
	}
	return r.conn.Read(p)
}

func newTransport(conn net.Conn) *transport {
	in := &idleReader{conn: conn}
	return &transport{conn: conn, in: in, r: bufio.NewReader(in), max: preAuthFrame}
}

// startSession lifts the frame cap and switches from the handshake's
// absolute deadline to per-operation deadlines of timeout. It must be
// called before the reader and heartbeat goroutines start.
func (t *transport) startSession(timeout time.Duration) error {
	t.max = MaxFrame
	t.in.idle = timeout
	t.wait = timeout
	return t.conn.SetDeadline(time.Time{})
}

// seal makes every later frame carry a tag, under key toPeer for frames
// sent and fromPeer for frames read. It must be called before the reader
// and heartbeat goroutines start, between two frames of the handshake.
func (t *transport) seal(toPeer, fromPeer []byte) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.send, t.recv = newSealer(toPeer), newSealer(fromPeer)
}

func (t *transport) read() (byte, []byte, error) {
	typ, payload, err := readFrame(t.r, t.max)
	if err != nil || t.recv == nil {
		return typ, payload, err
	}
	body, err := t.recv.open(typ, payload)
	return typ, body, err
}

// readFrame reads one frame whose length field may be at most limit.
// A clean end of stream before the first byte returns io.EOF.
func readFrame(r io.Reader, limit uint32) (byte, []byte, error) {
	var hdr [headerLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("frame header truncated: %w", err)
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n == 0 {
		return 0, nil, errors.New("malformed frame: zero length")
	}
	if n > limit {
		return 0, nil, &frameSizeError{n: n, limit: limit}
	}
	body, err := readBody(r, int(n-1))
	if err != nil {
		return 0, nil, err
	}
	return hdr[4], body, nil
}

// frameSizeError is a length field over the reader's limit.
type frameSizeError struct{ n, limit uint32 }

func (e *frameSizeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the %d-byte limit", e.n, e.limit)
}

// readBody reads exactly n bytes, growing its buffer by doubling from
// ioChunk so memory follows the bytes actually received.
func readBody(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, ioChunk))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(grown, buf)
			buf = grown
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("frame body truncated after %d of %d bytes: %w", len(buf), n, err)
		}
	}
	return buf, nil
}

// write sends one frame. It fails, without writing, if the frame would
// exceed MaxFrame.
func (t *transport) write(typ byte, body []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	var tag []byte
	if t.send != nil {
		tag = make([]byte, 0, tagLen)
	}
	n := 1 + len(body) + cap(tag)
	if n > MaxFrame {
		return fmt.Errorf("frame of %d bytes exceeds the %d-byte limit", n, MaxFrame)
	}
	if t.send != nil {
		tag = append(tag, t.send.tag(typ, body)...)
	}
	var hdr [headerLen]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(n))
	hdr[4] = typ

	var err error
	if len(body) <= ioChunk {
		// One write for small frames: one segment on the wire, which keeps
		// the clock probe's round trips tight.
		frame := make([]byte, 0, headerLen+n-1)
		err = t.writeChunk(append(append(append(frame, hdr[:]...), body...), tag...))
	} else {
		err = t.writeChunk(hdr[:])
		for off := 0; err == nil && off < len(body); off += ioChunk {
			err = t.writeChunk(body[off:min(len(body), off+ioChunk)])
		}
		if err == nil && len(tag) > 0 {
			err = t.writeChunk(tag)
		}
	}
	if err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	t.lastWrite.Store(clock.Now())
	return nil
}

func (t *transport) writeChunk(p []byte) error {
	if t.wait > 0 {
		if err := t.conn.SetWriteDeadline(time.Now().Add(t.wait)); err != nil {
			return err
		}
	}
	_, err := t.conn.Write(p)
	return err
}

// writeJSON encodes v and sends it as one frame of type typ.
func (t *transport) writeJSON(typ byte, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", msgName(typ), err)
	}
	return t.write(typ, body)
}

// closeWrite half-closes the connection where the transport supports it, so
// the peer reads everything sent and then a clean end of stream.
func (t *transport) closeWrite() {
	if cw, ok := t.conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
