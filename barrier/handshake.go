package barrier

import (
	"crypto/hmac"
	"errors"
	"fmt"
)

// strangerError is a refusal before the secret was proved.
type strangerError struct{ why string }

func (e *strangerError) Error() string { return e.why }

// rankRefusal is a refusal of a peer that proved the secret: a genuine
// rank with a problem worth a line of its own.
type rankRefusal struct {
	who  string
	rank int
	err  error
	// logged is set when the refusal was logged before the rank heard
	// it, so serveConn does not log it again.
	logged bool
}

func (e *rankRefusal) Error() string { return e.who + ": " + e.err.Error() }

// logRefusal writes the coordinator's line for a refused rank.
func (c *Coordinator) logRefusal(re *rankRefusal, addr string) {
	c.cfg.Logf("refused %s from %s: %v", re.who, addr, re.err)
}

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
		// Logged before the rank is told: a refused rank exits at once,
		// the launcher then closes the job, and by the time this
		// goroutine ran again the line could be lost with the process.
		re := &rankRefusal{who: who, rank: h.Rank, err: errors.New(detail), logged: true}
		c.logRefusal(re, addr)
		_ = t.writeJSON(msgReject, rejectMsg{Message: reply})
		return nil, re
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
