package barrier

import (
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// maxHandshakes bounds connections in handshake at once, so a flood of
// strangers costs a fixed number of goroutines and descriptors.
const maxHandshakes = 64

// admit registers a new connection for its handshake. When all slots are
// taken it drops the oldest handshake rather than the newcomer: a genuine
// rank completes its handshake in a few round trips, so the oldest entry
// is almost always an idle or stalled stranger, and a flood of them cannot
// lock real ranks out until their handshake deadlines expire.
func (c *Coordinator) admit(conn net.Conn) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		_ = conn.Close()
		return
	}
	var evicted net.Conn
	if len(c.handshake) >= maxHandshakes {
		evicted = c.oldestHandshake()
		delete(c.handshake, evicted)
	}
	c.handshake[conn] = time.Now()
	c.wg.Add(1)
	c.mu.Unlock()

	if evicted != nil {
		_ = evicted.Close()
		c.cfg.Logf("rejected connection from %s: %d connections already in handshake; dropped the oldest",
			evicted.RemoteAddr(), maxHandshakes)
	}
	go func() {
		defer c.wg.Done()
		c.serveConn(conn)
	}()
}

// oldestHandshake must be called with c.mu held and the map non-empty.
func (c *Coordinator) oldestHandshake() net.Conn {
	var oldest net.Conn
	var at time.Time
	for conn, t := range c.handshake {
		if oldest == nil || t.Before(at) {
			oldest, at = conn, t
		}
	}
	return oldest
}

// releaseHandshake forgets conn and reports whether it was still ours to
// log about (an evicted or shut-down connection was logged already).
func (c *Coordinator) releaseHandshake(conn net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ours := c.handshake[conn]
	delete(c.handshake, conn)
	return ours
}

func (c *Coordinator) serveConn(conn net.Conn) {
	addr := conn.RemoteAddr().String()
	// One deadline for the whole handshake: trickling bytes cannot extend it.
	_ = conn.SetDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	t := newTransport(conn)
	s, err := c.authenticate(t, addr)
	if err != nil {
		_ = conn.Close()
		if c.releaseHandshake(conn) {
			c.cfg.Logf("rejected connection from %s: %v", addr, err)
		}
		return
	}
	c.runSession(s)
}

// authenticate runs the coordinator's side of the handshake. On success
// the rank's slot is claimed and the returned session owns the connection.
func (c *Coordinator) authenticate(t *transport, addr string) (*session, error) {
	h, err := readHello(t)
	if err != nil {
		return nil, err
	}
	who := fmt.Sprintf("host %q rank %d", h.Host, h.Rank)
	if msg := c.vet(h); msg != "" {
		return nil, fmt.Errorf("%s: %w", who, reject(t, msg))
	}
	nonce, err := newNonce()
	if err != nil {
		return nil, err
	}
	ch := challengeMsg{Nonce: nonce, Proof: coordProof(c.cfg.Secret, h.Nonce, c.cfg.JobID)}
	if err := t.writeJSON(msgChallenge, ch); err != nil {
		return nil, fmt.Errorf("%s: send challenge: %w", who, err)
	}
	typ, proof, err := t.read()
	if errors.Is(err, io.EOF) {
		// What a genuine rank does when our proof fails its check.
		return nil, fmt.Errorf("%s: hung up instead of sending its proof (does it hold another job secret?)", who)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read proof: %w", who, err)
	}
	if typ != msgProof {
		return nil, fmt.Errorf("%s: expected proof, got %s", who, msgName(typ))
	}
	if !hmac.Equal(proof, rankProof(c.cfg.Secret, nonce, c.cfg.JobID, h.Rank)) {
		return nil, errors.New("bad secret")
	}
	s := newSession(c, t, h, addr)
	if err := c.claim(s); err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	return s, nil
}

// readHello reads and decodes the first frame. Magic and version are
// decoded first so a future Hello with other fields is still refused by
// version rather than as malformed.
func readHello(t *transport) (helloMsg, error) {
	var h helloMsg
	typ, body, err := t.read()
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		// An idle or trickling stranger: say what it failed to do.
		return h, errors.New("no hello within the handshake timeout")
	case errors.Is(err, io.EOF):
		return h, errors.New("hung up before sending a hello")
	case err != nil:
		return h, fmt.Errorf("read hello: %w", err)
	}
	if typ != msgHello {
		return h, fmt.Errorf("expected hello, got %s", msgName(typ))
	}
	var head struct {
		Magic   string `json:"magic"`
		Version int    `json:"version"`
	}
	if err := decode(typ, body, &head); err != nil {
		return h, err
	}
	if head.Magic != magic {
		return h, errors.New("not an ioswarm rank (bad magic)")
	}
	if head.Version != ProtocolVersion {
		// Best effort: another version's Hello may not decode as ours, but
		// its host and rank make the log line useful when it does.
		_ = json.Unmarshal(body, &h)
		h.Version = head.Version
		return h, nil
	}
	return h, decode(typ, body, &h)
}

// vet checks a Hello against the job; a non-empty result is the reason the
// rank is refused, worded for the person reading the rank's error.
func (c *Coordinator) vet(h helloMsg) string {
	switch {
	case h.Version != ProtocolVersion:
		return fmt.Sprintf("protocol version %d, coordinator speaks %d", h.Version, ProtocolVersion)
	case h.JobID != c.cfg.JobID:
		return fmt.Sprintf("job %q, coordinator runs job %q", h.JobID, c.cfg.JobID)
	case h.BinaryHash != c.cfg.BinaryHash:
		return fmt.Sprintf("binary %s differs from the coordinator's binary %s",
			shortHash(h.BinaryHash), shortHash(c.cfg.BinaryHash))
	case h.Rank < 0 || h.Rank >= c.cfg.Ranks:
		return fmt.Sprintf("rank %d out of range 0..%d", h.Rank, c.cfg.Ranks-1)
	case len(h.Nonce) != nonceLen:
		return fmt.Sprintf("malformed hello: nonce of %d bytes, want %d", len(h.Nonce), nonceLen)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.members[h.Rank] != nil {
		return fmt.Sprintf("rank %d already joined", h.Rank)
	}
	return ""
}

// claim gives the authenticated session its rank slot. The slot is taken
// only after the proof, so a stranger can never hold a rank hostage.
func (c *Coordinator) claim(s *session) error {
	c.mu.Lock()
	_, ours := c.handshake[s.t.conn]
	live := ours && !c.closing
	dup := c.members[s.rank] != nil
	if live && !dup {
		delete(c.handshake, s.t.conn)
		c.members[s.rank] = s
	}
	c.mu.Unlock()
	switch {
	case !live:
		return errors.New("dropped during handshake")
	case dup:
		return reject(s.t, fmt.Sprintf("rank %d already joined", s.rank))
	}
	return nil
}

// reject tells the peer why it is refused and returns that reason as the
// error to log. The write is best effort: the connection is dropped next.
func reject(t *transport, msg string) error {
	_ = t.writeJSON(msgReject, rejectMsg{Message: msg})
	return errors.New(msg)
}
