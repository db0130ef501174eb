package barrier

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// TestRejections plays ranks that must not join, each while the real ranks
// of the job join around it, and checks the words each side gets. No
// refusal tells the peer the coordinator's job ID or build hash.
func TestRejections(t *testing.T) {
	const otherHash = "deadbeefcafe0123456789abcdef0123456789abcdef0123456789abcdef0123"
	cases := []struct {
		name    string
		hello   Hello
		secret  []byte
		version int
		want    []string // in the rank's error, a *RejectError
		log     string   // in the coordinator's log
	}{
		{name: "wrong secret", hello: testHello(1), secret: []byte("not-the-job-secret!!"),
			want: []string{"not admitted: the hello does not prove this job's secret"},
			log:  "refused a connection from 127.0.0.1: no proof of the job secret"},
		{name: "binary hash", hello: Hello{JobID: testJob, Rank: 1, Host: "x", BinaryHash: otherHash},
			want: []string{"this rank's binary (sha256 deadbeefcafe) is not the coordinator's build"},
			log:  "its running binary has sha256 deadbeefcafe, not the coordinator's " + testHash[:12]},
		{name: "protocol version", hello: testHello(1), version: 3,
			want: []string{"protocol version 3, coordinator speaks 2"},
			log:  "refused a connection from 127.0.0.1: another protocol version"},
		{name: "job ID", hello: Hello{JobID: "job-other", Rank: 1, Host: "x", BinaryHash: testHash},
			want: []string{"the job ID differs from this coordinator's"},
			log:  `hello for job "job-other", this coordinator runs job "` + testJob + `"`},
		{name: "out of range", hello: testHello(3),
			want: []string{"rank 3 out of range 0..2"}, log: `refused host "node03" rank 3 from 127.0.0.1:`},
		{name: "negative rank", hello: testHello(-1),
			want: []string{"rank -1 out of range"}, log: "out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fakerank.Guard(t, 30*time.Second)
			log := &fakerank.Log{}
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
			if !errors.As(err, &rej) {
				t.Errorf("not a RejectError: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if rej != nil && (strings.Contains(rej.Msg, testJob) || strings.Contains(rej.Msg, testHash[:8])) {
				t.Errorf("the refusal %q gives away the job ID or the build hash", rej.Msg)
			}
			log.WaitFor(t, tc.log, 1, wait)
			t.Logf("coordinator log:\n%s", log)

			// The genuine ranks still join and work.
			startRank(t, addr, 1, fastOptions(), echo)
			startRank(t, addr, 2, fastOptions(), echo)
			join(t, c)
			callEcho(t, c, 0)
		})
	}
}

// TestVersionOneHello answers a Hello of the first protocol version (a
// JSON object) with both versions, and nothing else.
func TestVersionOneHello(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	log := &fakerank.Log{}
	c := startCoordinator(t, testConfig(1, log))
	tr := newTransport(dialRaw(t, c.Addr().String()))
	_ = tr.conn.SetDeadline(time.Now().Add(wait))
	nonce, _ := newNonce()
	old := map[string]any{"magic": magic, "version": 1, "job_id": testJob, "rank": 0, "host": "old",
		"binary_hash": testHash, "nonce": nonce}
	if err := tr.writeJSON(msgHello, old); err != nil {
		t.Fatal(err)
	}
	_, err := expect(tr, msgChallenge)
	var rej *RejectError
	if !errors.As(err, &rej) || rej.Msg != "protocol version 1, coordinator speaks 2" {
		t.Fatalf("got %v", err)
	}
	log.WaitFor(t, "another protocol version", 1, wait)
}

func TestDuplicateRank(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	log := &fakerank.Log{}
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
	log.WaitFor(t, "rank 1 already joined", 1, wait)
	if c.Err() != nil {
		t.Fatalf("a refused duplicate must not fail the job: %v", c.Err())
	}
	callEcho(t, c, 0)
}

// TestForgedHello plays a client that knows everything a node's process
// list shows (job ID, rank) and the build hash, but not the secret: its
// Hello is refused before it gets a challenge, with words that name
// nothing of the job, and it is counted rather than logged.
func TestForgedHello(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	log := &fakerank.Log{}
	c := startCoordinator(t, testConfig(2, log))
	addr := c.Addr().String()

	tr := newTransport(dialRaw(t, addr))
	_ = tr.conn.SetDeadline(time.Now().Add(wait))
	nonce, _ := newNonce()
	h := testHello(0)
	body, err := encodeHello([]byte("a guess at the secret!!"), ProtocolVersion,
		helloMsg{JobID: h.JobID, Rank: 0, Host: h.Host, BinaryHash: h.BinaryHash, Nonce: nonce})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.write(msgHello, body); err != nil {
		t.Fatal(err)
	}
	_, err = expect(tr, msgChallenge)
	var rej *RejectError
	if !errors.As(err, &rej) || strings.Contains(rej.Msg, testJob) || strings.Contains(rej.Msg, testHash[:8]) {
		t.Fatalf("got %v", err)
	}
	if _, _, err := tr.read(); err == nil {
		t.Fatal("the coordinator kept talking after refusing")
	}
	log.WaitFor(t, "refused a connection from 127.0.0.1: no proof of the job secret", 1, wait)
	if got := c.Rejected()["127.0.0.1"]; got != 1 {
		t.Errorf("Rejected counts %d from 127.0.0.1, want 1", got)
	}

	// The slot the impostor named is still free for the real rank 0.
	startRanks(t, addr, 2, fastOptions(), echo)
	join(t, c)
	callEcho(t, c, 0)
}

// TestImpostorCoordinator checks a rank refuses a listener that does not
// know the secret (it answers the Hello with a challenge whose proof is
// wrong) before giving away a proof of its own.
func TestImpostorCoordinator(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sentProof := make(chan bool, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		tr := newTransport(conn)
		_ = conn.SetDeadline(time.Now().Add(wait))
		if _, _, err := tr.read(); err != nil {
			return
		}
		_ = tr.write(msgChallenge, make([]byte, nonceLen+macLen))
		_, _, err = tr.read()
		sentProof <- err == nil
	}()
	_, err = Dial(context.Background(), ln.Addr().String(), testHello(0), testSecret(), fastOptions())
	if err == nil || !strings.Contains(err.Error(), "coordinator failed to prove the job secret") {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "rank 0: join coordinator at "+ln.Addr().String()) {
		t.Fatalf("error %q lacks rank and address", err)
	}
	if <-sentProof {
		t.Fatal("the rank sent its proof to an impostor")
	}
}

// TestOtherJobsCoordinator: a coordinator of another job (another secret)
// refuses the rank, and the rank does not retry.
func TestOtherJobsCoordinator(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	cfg := testConfig(1, &fakerank.Log{})
	cfg.Secret = []byte("some-other-jobs-secret")
	c := startCoordinator(t, cfg)
	begin := time.Now()
	_, err := Dial(context.Background(), c.Addr().String(), testHello(0), testSecret(), fastOptions())
	var rej *RejectError
	if !errors.As(err, &rej) {
		t.Fatalf("got %v after %v", err, time.Since(begin))
	}
	// The refusal reaches the rank before the coordinator has counted
	// it (it counts once the connection is closed): wait for the count.
	// That it is 1, not more, is what shows the rank did not retry; how
	// long the refusal took is up to the machine's load.
	deadline := time.Now().Add(20 * time.Second)
	for c.Rejected()["127.0.0.1"] == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := c.Rejected()["127.0.0.1"]; got != 1 {
		t.Errorf("Rejected counts %d, want 1", got)
	}
}

// TestRefusalLoggedBeforeTheRankHearsIt closes the coordinator the moment
// a refused rank hears why, as the launcher does when that rank exits,
// and finds the coordinator's own line already in the log: written after
// the refusal, it raced the close and was lost under load.
func TestRefusalLoggedBeforeTheRankHearsIt(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	const otherHash = "0151cd13b625aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for i := 0; i < 20; i++ {
		log := &fakerank.Log{}
		c := startCoordinator(t, testConfig(2, log))
		hello := Hello{JobID: testJob, Rank: 1, Host: "node2", BinaryHash: otherHash}
		m, err := Dial(context.Background(), c.Addr().String(), hello, testSecret(), fastOptions())
		c.Close("rank 1 exited")
		if err == nil {
			_ = m.Close()
			t.Fatal("the rank joined")
		}
		want := `refused host "node2" rank 1 from 127.0.0.1:`
		if got := log.Count(want); got != 1 {
			t.Fatalf("try %d: %d lines with %q when the rank heard the refusal; log:\n%s", i, got, want, log)
		}
	}
}
