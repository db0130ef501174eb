package barrier

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
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
// (heartbeat 500ms, timeout 5s, handshake timeout 5s, clock.Now).
type DialOptions struct {
	Heartbeat, Timeout, HandshakeTimeout time.Duration
	Now                                  func() int64

	// version is the protocol version claimed in the Hello; 0 means
	// ProtocolVersion. Only tests set it, to play an incompatible rank.
	version int
}

func (o DialOptions) normalise() (DialOptions, error) {
	o.Heartbeat = durationOr(o.Heartbeat, defaultHeartbeat)
	o.Timeout = durationOr(o.Timeout, defaultTimeout)
	o.HandshakeTimeout = durationOr(o.HandshakeTimeout, defaultHandshake)
	if o.Now == nil {
		o.Now = clock.Now
	}
	if o.version == 0 {
		o.version = ProtocolVersion
	}
	return o, checkTimes(o.Heartbeat, o.Timeout, o.HandshakeTimeout)
}

// Dial joins the coordinator at addr as the rank described by hello,
// proving knowledge of secret and checking that the coordinator knows it
// too. It returns once the coordinator has welcomed the rank; the
// coordinator then probes the clock through the returned Member.
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
	hctx, cancel := context.WithTimeout(ctx, opt.HandshakeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(hctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	deadline, _ := hctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := watchHandshake(hctx, conn)
	t := newTransport(conn)
	err = rankHandshake(t, hello, secret, opt.version)
	if stop() && err == nil {
		err = hctx.Err() // too late: the deadline may already be in the past
	}
	if err == nil {
		err = t.startSession(opt.Timeout)
	}
	if err != nil {
		_ = conn.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return nil, err
	}
	return startMember(ctx, t, addr, hello.Rank, opt), nil
}

// rankHandshake runs the rank's side: Hello, check the coordinator's
// proof, send ours, await Welcome. Either side may answer with Reject.
func rankHandshake(t *transport, h Hello, secret []byte, version int) error {
	nonce, err := newNonce()
	if err != nil {
		return err
	}
	hello := helloMsg{Magic: magic, Version: version, JobID: h.JobID, Rank: h.Rank,
		Host: h.Host, BinaryHash: h.BinaryHash, Nonce: nonce}
	if err := t.writeJSON(msgHello, hello); err != nil {
		return fmt.Errorf("send hello: %w", err)
	}
	var ch challengeMsg
	if err := expect(t, msgChallenge, &ch); err != nil {
		return err
	}
	if !hmac.Equal(ch.Proof, coordProof(secret, nonce, h.JobID)) {
		return errors.New("coordinator failed to prove the job secret (wrong secret, or not this job's coordinator)")
	}
	if len(ch.Nonce) != nonceLen {
		return fmt.Errorf("malformed challenge: nonce of %d bytes", len(ch.Nonce))
	}
	if err := t.write(msgProof, rankProof(secret, ch.Nonce, h.JobID, h.Rank)); err != nil {
		return fmt.Errorf("send proof: %w", err)
	}
	var welcome struct{}
	return expect(t, msgWelcome, &welcome)
}

// expect reads one handshake frame of type want into v, turning a Reject
// into *RejectError.
func expect(t *transport, want byte, v any) error {
	typ, body, err := t.read()
	if err != nil {
		return fmt.Errorf("read %s: %w", msgName(want), err)
	}
	switch typ {
	case want:
		return decode(typ, body, v)
	case msgReject:
		var r rejectMsg
		if err := decode(typ, body, &r); err != nil {
			return err
		}
		return &RejectError{Msg: r.Message}
	}
	return fmt.Errorf("expected %s, got %s", msgName(want), msgName(typ))
}
