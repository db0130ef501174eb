package barrier

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// TestRejections plays ranks that must not join, each while the real ranks
// of the job join around it, and checks the words each side gets.
func TestRejections(t *testing.T) {
	const otherHash = "deadbeefcafe0123456789abcdef0123456789abcdef0123456789abcdef0123"
	cases := []struct {
		name    string
		hello   Hello
		secret  []byte
		version int
		reject  bool     // the rank gets *RejectError
		want    []string // in the rank's error
		log     string   // in the coordinator's log
	}{
		{name: "wrong secret", hello: testHello(1), secret: []byte("not-the-job-secret!!"),
			want: []string{"coordinator failed to prove the job secret"}, log: "another job secret"},
		{name: "binary hash", hello: Hello{JobID: testJob, Rank: 1, Host: "x", BinaryHash: otherHash}, reject: true,
			want: []string{"deadbeefcafe", testHash[:12]}, log: "deadbeefcafe"},
		{name: "protocol version", hello: testHello(1), version: 2, reject: true,
			want: []string{"protocol version 2, coordinator speaks 1"}, log: "protocol version 2"},
		{name: "job ID", hello: Hello{JobID: "job-other", Rank: 1, Host: "x", BinaryHash: testHash}, reject: true,
			want: []string{`job "job-other"`, `"` + testJob + `"`}, log: "job-other"},
		{name: "out of range", hello: testHello(3), reject: true,
			want: []string{"rank 3 out of range 0..2"}, log: "out of range"},
		{name: "negative rank", hello: testHello(-1), reject: true,
			want: []string{"rank -1 out of range"}, log: "out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			guard(t, 30*time.Second)
			log := &logSink{}
			c := startCoordinator(t, testConfig(3, log))
			addr := c.Addr().String()
			startRank(t, addr, 0, fastOptions(), echo)

			secret := tc.secret
			if secret == nil {
				secret = testSecret()
			}
			opt := fastOptions()
			opt.version = tc.version
			m, err := Dial(context.Background(), addr, tc.hello, secret, opt)
			if err == nil {
				_ = m.Close()
				t.Fatal("the rank joined")
			}
			t.Logf("rank error: %v", err)
			var rej *RejectError
			if errors.As(err, &rej) != tc.reject {
				t.Errorf("RejectError: got %v, want %v (%v)", !tc.reject, tc.reject, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			log.waitFor(t, "rejected connection from 127.0.0.1:", 1)
			log.waitFor(t, tc.log, 1)
			t.Logf("coordinator log:\n%s", log)

			// The genuine ranks still join and work.
			startRank(t, addr, 1, fastOptions(), echo)
			startRank(t, addr, 2, fastOptions(), echo)
			join(t, c)
			callEcho(t, c, 0)
		})
	}
}

func TestDuplicateRank(t *testing.T) {
	guard(t, 30*time.Second)
	log := &logSink{}
	c := startCoordinator(t, testConfig(2, log))
	addr := c.Addr().String()
	startRanks(t, addr, 2, fastOptions(), echo)
	join(t, c)
	m, err := Dial(context.Background(), addr, testHello(1), testSecret(), fastOptions())
	if err == nil {
		_ = m.Close()
		t.Fatal("a second rank 1 joined")
	}
	var rej *RejectError
	if !errors.As(err, &rej) || !strings.Contains(err.Error(), "rank 1 already joined") {
		t.Fatalf("got %v", err)
	}
	log.waitFor(t, "rank 1 already joined", 1)
	if c.Err() != nil {
		t.Fatalf("a refused duplicate must not fail the job: %v", c.Err())
	}
	callEcho(t, c, 0)
}

// TestBadProof plays a client that knows the job ID but not the secret and
// answers the challenge with garbage: dropped, logged as a bad secret.
func TestBadProof(t *testing.T) {
	guard(t, 30*time.Second)
	log := &logSink{}
	c := startCoordinator(t, testConfig(2, log))
	addr := c.Addr().String()

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	tr := newTransport(conn)
	nonce, _ := newNonce()
	h := testHello(0)
	err = tr.writeJSON(msgHello, helloMsg{Magic: magic, Version: ProtocolVersion, JobID: h.JobID,
		Rank: 0, Host: h.Host, BinaryHash: h.BinaryHash, Nonce: nonce})
	if err != nil {
		t.Fatal(err)
	}
	var ch challengeMsg
	if err := expect(tr, msgChallenge, &ch); err != nil {
		t.Fatal(err)
	}
	if err := tr.write(msgProof, make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.read(); err == nil {
		t.Fatal("coordinator answered a bad proof")
	}
	log.waitFor(t, "rejected connection from "+conn.LocalAddr().String()+": bad secret", 1)

	// The slot the impostor named is still free for the real rank 0.
	startRanks(t, addr, 2, fastOptions(), echo)
	join(t, c)
	callEcho(t, c, 0)
}

// TestImpostorCoordinator checks a rank refuses a listener that does not
// know the secret, before giving away a proof of its own.
func TestImpostorCoordinator(t *testing.T) {
	guard(t, 30*time.Second)
	cfg := testConfig(1, &logSink{})
	cfg.Secret = []byte("some-other-jobs-secret")
	c := startCoordinator(t, cfg)
	_, err := Dial(context.Background(), c.Addr().String(), testHello(0), testSecret(), fastOptions())
	if err == nil || !strings.Contains(err.Error(), "coordinator failed to prove the job secret") {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "rank 0: join coordinator at "+c.Addr().String()) {
		t.Fatalf("error %q lacks rank and address", err)
	}
}
