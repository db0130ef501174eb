package barrier

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"net"
	"time"
)

// Admission. A connection is pending from accept until its first frame, a
// Hello, proves the job secret; only then does it leave the pending pool
// for a place of its rank's (authing) that no stranger can take. Strangers
// therefore compete only with other pending connections, and a genuine
// rank is pending for one network round trip at most:
//
//   - at most maxPerSource connections are pending from one address, and
//     a newcomer over that drops the oldest of the same address, so one
//     flooding host crowds out nobody but itself;
//   - at most maxPending are pending in all, and a newcomer over that drops
//     the oldest connection of the address with the most pending;
//   - "the oldest" is the oldest that has sent nothing yet, while there is
//     one (unread.go): a rank's Hello waiting to be read is not dropped
//     for a flood's idle connection;
//   - a rank whose connection was dropped before its handshake completed
//     dials again with backoff until its join deadline (Dial).
//
// Refusals before the proof are counted by source (strangers.go); a refused
// rank that proved the secret (wrong binary, rank taken) is logged in full.
const (
	maxPending   = 256
	maxPerSource = 16
)

// pendingConn is a connection that has not yet proved the secret.
type pendingConn struct {
	src string
	at  time.Time
}

// admit registers a new connection and starts its handshake.
func (c *Coordinator) admit(conn net.Conn) {
	src := sourceOf(conn.RemoteAddr())
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		_ = conn.Close()
		return
	}
	var evicted net.Conn
	var evictedSrc string
	switch {
	case c.bySource[src] >= maxPerSource:
		evicted, evictedSrc = c.oldestPending(src), src
	case len(c.pending) >= maxPending:
		evictedSrc = c.busiestSource()
		evicted = c.oldestPending(evictedSrc)
	}
	if evicted != nil {
		c.dropPending(evicted)
	}
	c.pending[conn] = pendingConn{src: src, at: time.Now()}
	c.bySource[src]++
	c.wg.Add(1)
	c.mu.Unlock()

	if evicted != nil {
		_ = evicted.Close()
		c.strangers.refused(evictedSrc, whyCrowded)
	}
	go func() {
		defer c.wg.Done()
		c.serveConn(conn, src)
	}()
}

// oldestPending must be called with c.mu held; src has pending
// connections. It is the oldest of src's that has sent nothing yet, or
// the oldest of all of them when every one has bytes waiting.
func (c *Coordinator) oldestPending(src string) net.Conn {
	return oldestOf(c.pending, src, unread)
}

// oldestOf is oldestPending's choice among pending, with waiting telling
// how many bytes a connection has sent that are not yet read.
func oldestOf(pending map[net.Conn]pendingConn, src string, waiting func(net.Conn) int) net.Conn {
	var oldest, oldestSilent net.Conn
	var at, silentAt time.Time
	for conn, p := range pending {
		if p.src != src {
			continue
		}
		if oldest == nil || p.at.Before(at) {
			oldest, at = conn, p.at
		}
		if (oldestSilent == nil || p.at.Before(silentAt)) && waiting(conn) == 0 {
			oldestSilent, silentAt = conn, p.at
		}
	}
	if oldestSilent != nil {
		return oldestSilent
	}
	return oldest
}

// busiestSource must be called with c.mu held.
func (c *Coordinator) busiestSource() string {
	best, most := "", 0
	for src, n := range c.bySource {
		if n > most || (n == most && src < best) {
			best, most = src, n
		}
	}
	return best
}

// dropPending forgets a pending connection; c.mu is held. It reports
// whether conn was pending.
func (c *Coordinator) dropPending(conn net.Conn) bool {
	p, ok := c.pending[conn]
	if !ok {
		return false
	}
	delete(c.pending, conn)
	if c.bySource[p.src]--; c.bySource[p.src] <= 0 {
		delete(c.bySource, p.src)
	}
	return true
}

// forget removes conn from admission after its handshake failed and
// reports whether it was still there: a connection evicted, replaced or
// cut by Close has been accounted for already.
func (c *Coordinator) forget(conn net.Conn, rank int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropPending(conn) {
		return true
	}
	if rank >= 0 && c.authing[rank] == conn {
		delete(c.authing, rank)
		return true
	}
	return false
}

func (c *Coordinator) serveConn(conn net.Conn, src string) {
	addr := conn.RemoteAddr().String()
	// One deadline for the whole handshake: trickling bytes cannot extend it.
	_ = conn.SetDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	t := newTransport(conn)
	s, err := c.authenticate(t, src, addr)
	if err == nil {
		c.runSession(s)
		return
	}
	_ = conn.Close()
	var se *strangerError
	if errors.As(err, &se) {
		if c.forget(conn, -1) {
			c.strangers.refused(src, se.why)
		}
		return
	}
	var re *rankRefusal
	if errors.As(err, &re) && c.forget(conn, re.rank) {
		c.cfg.Logf("refused %s from %s: %v", re.who, addr, re.err)
	}
}

// strangerError is a refusal before the secret was proved.
type strangerError struct{ why string }

func (e *strangerError) Error() string { return e.why }

// rankRefusal is a refusal of a peer that proved the secret: a genuine
// rank with a problem worth a line of its own.
type rankRefusal struct {
	who  string
	rank int
	err  error
}

func (e *rankRefusal) Error() string { return e.who + ": " + e.err.Error() }

// authenticate runs the coordinator's side of the handshake. On success
// the rank's slot is claimed and the returned session owns the connection.
func (c *Coordinator) authenticate(t *transport, src, addr string) (*session, error) {
	h, tag, err := c.readHello(t)
	if err != nil {
		return nil, err
	}
	who := fmt.Sprintf("host %q rank %d", h.Host, h.Rank)
	refuse := func(err error) error { return &rankRefusal{who: who, rank: h.Rank, err: err} }
	if c.replayed(tag) {
		return nil, &strangerError{why: whyReplay}
	}
	if reply, detail := c.vet(h); reply != "" {
		_ = t.writeJSON(msgReject, rejectMsg{Message: reply})
		return nil, refuse(errors.New(detail))
	}
	if !c.promote(t.conn, h.Rank, tag) {
		return nil, &strangerError{why: whyReplay}
	}
	nonce, err := newNonce()
	if err != nil {
		return nil, refuse(err)
	}
	if err := t.write(msgChallenge, append(append([]byte(nil), nonce...), coordProof(c.cfg.Secret, tag, nonce)...)); err != nil {
		return nil, refuse(fmt.Errorf("send challenge: %w", err))
	}
	typ, proof, err := t.read()
	switch {
	case err != nil:
		// A genuine rank hangs up here when our proof fails its check,
		// which only a change on the way can cause: it holds the secret.
		return nil, refuse(fmt.Errorf("no proof after the challenge (did something on the way alter it?): %w", err))
	case typ != msgProof:
		return nil, refuse(fmt.Errorf("expected proof, got %s", msgName(typ)))
	case !hmac.Equal(proof, rankProof(c.cfg.Secret, tag, nonce)):
		return nil, refuse(errors.New("wrong proof after a valid hello"))
	}
	toRank, toCoord := sessionKeys(c.cfg.Secret, tag, nonce)
	t.seal(toRank, toCoord)
	s := newSession(c, t, h, addr)
	if err := c.claim(s); err != nil {
		return nil, refuse(err)
	}
	return s, nil
}

// readHello reads the first frame and checks its proof of the secret.
// Every failure is a strangerError, counted rather than logged; a Hello of
// another version is answered with both versions, one without the proof
// with a refusal that names nothing of the job.
func (c *Coordinator) readHello(t *transport) (helloMsg, []byte, error) {
	typ, body, err := t.read()
	var fse *frameSizeError
	switch {
	case errors.As(err, &fse):
		return helloMsg{}, nil, &strangerError{why: whyTooLarge}
	case err != nil:
		return helloMsg{}, nil, &strangerError{why: whyNoHello}
	case typ != msgHello:
		return helloMsg{}, nil, &strangerError{why: whyNotOurs}
	}
	h, tag, err := openHello(c.cfg.Secret, body)
	var ve *versionError
	switch {
	case err == nil:
		return h, tag, nil
	case errors.As(err, &ve):
		_ = t.writeJSON(msgReject, rejectMsg{Message: ve.Error()})
		return h, nil, &strangerError{why: whyVersion}
	case errors.Is(err, errBadProof):
		_ = t.writeJSON(msgReject, rejectMsg{Message: "not admitted: the hello does not prove this job's secret"})
		return h, nil, &strangerError{why: whyBadProof}
	}
	return h, nil, &strangerError{why: whyNotOurs}
}

// vet checks an authenticated Hello against the job. A non-empty reply is
// the refusal sent to the rank, which names neither the job nor the
// coordinator's build; detail says more, for the coordinator's own log.
func (c *Coordinator) vet(h helloMsg) (reply, detail string) {
	switch {
	case h.JobID != c.cfg.JobID:
		return "the job ID differs from this coordinator's",
			fmt.Sprintf("hello for job %q, this coordinator runs job %q", h.JobID, c.cfg.JobID)
	case h.BinaryHash != c.cfg.BinaryHash:
		return fmt.Sprintf("this rank's binary (sha256 %s) is not the coordinator's build", shortHash(h.BinaryHash)),
			fmt.Sprintf("its running binary has sha256 %s, not the coordinator's %s (was the file replaced after it was checked?)",
				shortHash(h.BinaryHash), shortHash(c.cfg.BinaryHash))
	case h.Rank < 0 || h.Rank >= c.cfg.Ranks:
		msg := fmt.Sprintf("rank %d out of range 0..%d", h.Rank, c.cfg.Ranks-1)
		return msg, msg
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.members[h.Rank] != nil {
		msg := fmt.Sprintf("rank %d already joined", h.Rank)
		return msg, msg
	}
	return "", ""
}

// replayed reports whether a Hello with this MAC was accepted before.
func (c *Coordinator) replayed(tag []byte) bool {
	var key [macLen]byte
	copy(key[:], tag)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, seen := c.seen[key]
	return seen
}

// promote moves a connection whose Hello proved the secret from the
// pending pool to its rank's place, which strangers cannot take. A newer
// attempt of the same rank replaces an older one (the rank gave up on it).
// It reports false for a replayed Hello, or a connection dropped meanwhile.
func (c *Coordinator) promote(conn net.Conn, rank int, tag []byte) bool {
	var key [macLen]byte
	copy(key[:], tag)
	c.mu.Lock()
	_, replayed := c.seen[key]
	ok := !replayed && !c.closing && c.dropPending(conn)
	var older net.Conn
	if ok {
		c.seen[key] = struct{}{}
		older = c.authing[rank]
		c.authing[rank] = conn
	}
	c.mu.Unlock()
	if older != nil {
		_ = older.Close()
		c.cfg.Debugf("rank %d dialled again; dropped its earlier handshake from %s", rank, older.RemoteAddr())
	}
	return ok
}

// claim gives the authenticated session its rank slot. The slot is taken
// only after the proof, so a stranger can never hold a rank hostage.
func (c *Coordinator) claim(s *session) error {
	c.mu.Lock()
	ours := c.authing[s.rank] == s.t.conn
	live := ours && !c.closing
	dup := c.members[s.rank] != nil
	if live && !dup {
		delete(c.authing, s.rank)
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

// shortHash is the first 12 hex digits of a hash: enough to tell two
// builds apart in a message a person reads.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "(none)"
	}
	return h
}
