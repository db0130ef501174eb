package barrier

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"time"

	"ioswarm/clock"
)

// Hello is what a rank says about itself when it joins.
type Hello struct {
	JobID      string
	Rank       int
	Host       string // empty = os.Hostname()
	BinaryHash string // hex SHA-256 of the rank's binary
}

// DialOptions tune a rank's session; zero values take the defaults
// (heartbeat 500ms, timeout 5s, handshake timeout 5s, join timeout 30s,
// clock.Now).
type DialOptions struct {
	Heartbeat, Timeout, HandshakeTimeout time.Duration
	// JoinTimeout bounds the whole join: a connection the coordinator
	// drops before the handshake completes (as it may under a flood of
	// strangers) is dialled again, with backoff, until it passes.
	JoinTimeout time.Duration
	Now         func() int64

	// version is the protocol version claimed in the Hello; 0 means
	// ProtocolVersion. Only tests set it, to play an incompatible rank.
	version int
}

func (o DialOptions) normalise() (DialOptions, error) {
	o.Heartbeat = durationOr(o.Heartbeat, defaultHeartbeat)
	o.Timeout = durationOr(o.Timeout, defaultTimeout)
	o.HandshakeTimeout = durationOr(o.HandshakeTimeout, defaultHandshake)
	o.JoinTimeout = durationOr(o.JoinTimeout, defaultJoin)
	if o.Now == nil {
		o.Now = clock.Now
	}
	if o.version == 0 {
		o.version = ProtocolVersion
	}
	if o.JoinTimeout < 0 {
		return o, fmt.Errorf("negative join timeout %v", o.JoinTimeout)
	}
	return o, checkTimes(o.Heartbeat, o.Timeout, o.HandshakeTimeout)
}

// Dial joins the coordinator at addr as the rank described by hello,
// proving knowledge of secret and checking that the coordinator knows it
// too. It returns once the coordinator has welcomed the rank; the
// coordinator then probes the clock through the returned Member. An
// attempt cut short before the handshake completes is retried until
// JoinTimeout; a refusal or a coordinator that fails its proof is not.
//
// ctx bounds the whole session, not just the dial: when it ends the
// connection is dropped without a goodbye, so the coordinator sees the
// rank lost, which is the truth.
func Dial(ctx context.Context, addr string, hello Hello, secret []byte, opt DialOptions) (*Member, error) {
	m, err := dial(ctx, addr, hello, secret, opt)
	if err != nil {
		return nil, fmt.Errorf("rank %d: join coordinator at %s: %w", hello.Rank, addr, err)
	}
	return m, nil
}

// Retry backoff between join attempts: doubling from retryFirst, at most
// retryMax, each wait jittered so ranks cut off together do not return
// together.
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = time.Second
)

func dial(ctx context.Context, addr string, hello Hello, secret []byte, opt DialOptions) (*Member, error) {
	opt, err := opt.normalise()
	if err != nil {
		return nil, err
	}
	if err := checkSecret(secret); err != nil {
		return nil, err
	}
	if hello.Host == "" {
		if hello.Host, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("host name: %w", err)
		}
	}
	begin := time.Now()
	deadline := begin.Add(opt.JoinTimeout)
	var tries joinTries
	for wait := retryFirst; ; wait = min(2*wait, retryMax) {
		m, err := dialOnce(ctx, addr, hello, secret, opt, deadline)
		if err == nil {
			return m, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		var again *retryable
		if !errors.As(err, &again) {
			return nil, err
		}
		tries.note(again)
		pause := wait/2 + rand.N(wait/2+1)
		if time.Now().Add(pause).After(deadline) {
			return nil, tries.gaveUp(time.Since(begin))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%v)", ctx.Err(), err)
		case <-time.After(pause):
		}
	}
}

// dialOnce is one join attempt, its handshake bounded by the handshake
// timeout and the join deadline.
func dialOnce(ctx context.Context, addr string, hello Hello, secret []byte, opt DialOptions, deadline time.Time) (*Member, error) {
	limit := time.Now().Add(opt.HandshakeTimeout)
	if deadline.Before(limit) {
		limit = deadline
	}
	hctx, cancel := context.WithDeadline(ctx, limit)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(hctx, "tcp", addr)
	if err != nil {
		return nil, &retryable{err: err, connected: false}
	}
	_ = conn.SetDeadline(limit)
	stop := watchHandshake(hctx, conn)
	t := newTransport(conn)
	err = rankHandshake(t, hello, secret, opt.version)
	if stop() && err == nil {
		err = &retryable{err: hctx.Err(), connected: true} // too late: the deadline may be past
	}
	if err == nil {
		err = t.startSession(opt.Timeout)
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return startMember(ctx, t, addr, hello.Rank, opt), nil
}

// retryable is a join attempt cut short by the network or the
// coordinator's admission: worth another try.
type retryable struct {
	err       error
	connected bool // the TCP connection was made; the handshake was cut
}

func (e *retryable) Error() string { return e.err.Error() }
func (e *retryable) Unwrap() error { return e.err }

// joinTries remembers what failed, to say why a join gave up.
type joinTries struct {
	n, cut int
	last   error
}

func (j *joinTries) note(r *retryable) {
	j.n++
	if r.connected {
		j.cut++
	}
	j.last = r.err
}

func (j *joinTries) gaveUp(took time.Duration) error {
	took = took.Round(10 * time.Millisecond)
	if j.cut == 0 {
		return fmt.Errorf("could not connect in %d attempts over %v (last: %v)", j.n, took, j.last)
	}
	return fmt.Errorf("gave up after %d attempts over %v: the coordinator dropped %d of them before the handshake "+
		"completed, as it does when strangers flood its port (last: %v)", j.n, took, j.cut, j.last)
}

// rankHandshake runs the rank's side: a Hello carrying its proof of the
// secret, check the coordinator's proof in the challenge, send ours, then
// seal the connection and await a sealed Welcome. The coordinator may
// answer with Reject instead of a challenge or of the Welcome.
func rankHandshake(t *transport, h Hello, secret []byte, version int) error {
	nonce, err := newNonce()
	if err != nil {
		return err
	}
	body, err := encodeHello(secret, version, helloMsg{JobID: h.JobID, Rank: h.Rank,
		Host: h.Host, BinaryHash: h.BinaryHash, Nonce: nonce})
	if err != nil {
		return err
	}
	if err := t.write(msgHello, body); err != nil {
		return &retryable{err: fmt.Errorf("send hello: %w", err), connected: true}
	}
	tag := body[len(magic)+2 : helloHead]
	ch, err := expect(t, msgChallenge)
	if err != nil {
		return err
	}
	if len(ch) != nonceLen+macLen {
		return fmt.Errorf("malformed challenge: %d bytes, want %d", len(ch), nonceLen+macLen)
	}
	coordNonce := ch[:nonceLen]
	if !hmac.Equal(ch[nonceLen:], coordProof(secret, tag, coordNonce)) {
		return errors.New("coordinator failed to prove the job secret (wrong secret, or not this job's coordinator)")
	}
	if err := t.write(msgProof, rankProof(secret, tag, coordNonce)); err != nil {
		return &retryable{err: fmt.Errorf("send proof: %w", err), connected: true}
	}
	toRank, toCoord := sessionKeys(secret, tag, coordNonce)
	t.seal(toCoord, toRank)
	welcome, err := expect(t, msgWelcome)
	if err != nil {
		return err
	}
	var v struct{}
	return decode(msgWelcome, welcome, &v)
}

// expect reads one handshake frame of type want and returns its body,
// turning a Reject into *RejectError. A broken or silent link is worth a
// retry; a forged or unexpected frame is not.
func expect(t *transport, want byte) ([]byte, error) {
	typ, body, err := t.read()
	switch {
	case errors.Is(err, errForged):
		return nil, fmt.Errorf("read %s: %w", msgName(want), err)
	case err != nil:
		return nil, &retryable{err: fmt.Errorf("read %s: %w", msgName(want), err), connected: true}
	}
	switch typ {
	case want:
		return body, nil
	case msgReject:
		var r rejectMsg
		if err := decode(typ, body, &r); err != nil {
			return nil, err
		}
		return nil, &RejectError{Msg: r.Message}
	}
	return nil, fmt.Errorf("expected %s, got %s", msgName(want), msgName(typ))
}
