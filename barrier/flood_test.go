package barrier

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestStrangersCannotStallJoin opens 100 idle connections at once, a
// garbage writer and an oversized length prefix, then has the real ranks
// join (from the same address as the strangers) and run barriers. None of
// the strangers joins, all are counted, the log holds a few summary lines
// rather than a line each, and the real ranks need not wait for the
// strangers' handshake deadline.
func TestStrangersCannotStallJoin(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	log := &fakerank.Log{}
	cfg := testConfig(4, log)
	cfg.HandshakeTimeout = 30 * time.Second // far beyond the test: idle strangers never time out here
	c := startCoordinator(t, cfg)
	addr := c.Addr().String()

	idle := make([]net.Conn, 100)
	for i := range idle {
		idle[i] = dialRaw(t, addr)
	}
	garbage := dialRaw(t, addr)
	junk := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	go func() { _, _ = garbage.Write(junk) }() // may fail once the coordinator hangs up
	huge := dialRaw(t, addr)
	if _, err := huge.Write([]byte{0xff, 0xff, 0xff, 0xff, msgHello, '{'}); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	startRanks(t, addr, 4, fastOptions(), echo)
	infos := join(t, c)
	for round := range 3 {
		callEcho(t, c, round)
	}
	if took := time.Since(start); took > cfg.HandshakeTimeout/2 {
		t.Fatalf("join and calls took %v: the strangers held the real ranks back", took)
	}
	for r, info := range infos {
		if info.Host != testHello(r).Host {
			t.Fatalf("slot %d holds %+v", r, info)
		}
	}
	c.mu.Lock()
	pending := len(c.pending)
	c.mu.Unlock()
	if pending > maxPerSource {
		t.Fatalf("%d connections pending from one address, limit %d", pending, maxPerSource)
	}
	for _, conn := range idle {
		_ = conn.Close()
	}
	waitRejected(t, c, "127.0.0.1", len(idle)+2)
	log.WaitFor(t, "dropped: too many connections from its address in handshake", 1, wait)
	log.WaitFor(t, "oversized first frame", 1, wait)
	log.WaitFor(t, "sent no hello", 1, wait)
	if n := log.Count("127.0.0.1"); n > 10 {
		t.Errorf("%d log lines about 127.0.0.1 for %d refusals; want a few summaries:\n%s", n, len(idle)+2, log)
	}
	if c.Err() != nil {
		t.Fatalf("strangers failed the job: %v", c.Err())
	}
}

// waitRejected waits until Rejected counts n connections from src.
func waitRejected(t *testing.T, c *Coordinator, src string, n int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for c.Rejected()[src] < n {
		if time.Now().After(deadline) {
			t.Fatalf("Rejected: %v, want %d from %s", c.Rejected(), n, src)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := c.Rejected()[src]; got != n {
		t.Fatalf("Rejected counts %d from %s, want exactly %d", got, src, n)
	}
}

// flood keeps connecting to addr from several goroutines until stop
// closes: connections closed at once, connections held idle for a while,
// and connections that send a frame that is no Hello. It returns the
// number of connections made once stopped.
func flood(addr string, stop <-chan struct{}) func() int {
	var made atomic.Int64
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var held []net.Conn
			defer func() {
				for _, conn := range held {
					_ = conn.Close()
				}
			}()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				conn, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					continue
				}
				made.Add(1)
				switch {
				case g == 0:
					held = append(held, conn) // idle, until the end or a cap
					if len(held) > 64 {
						_ = held[0].Close()
						held = held[1:]
					}
				case g == 1:
					_, _ = conn.Write([]byte{0, 0, 0, 2, msgProof, 0})
					_ = conn.Close()
				default:
					_ = conn.Close() // connect/close churn
				}
			}
		}()
	}
	return func() int {
		wg.Wait()
		return int(made.Load())
	}
}

// TestFloodDuringJoin is the attack that used to fail jobs: a flood of
// connections while the ranks join. Twenty joins of eight ranks, all from
// the strangers' own address, must all succeed.
func TestFloodDuringJoin(t *testing.T) {
	fakerank.Guard(t, 120*time.Second)
	rounds := 20
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		log := &fakerank.Log{}
		cfg := testConfig(8, log)
		cfg.SummaryEvery = time.Second
		c, err := Listen(context.Background(), "127.0.0.1:0", cfg)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		made := flood(c.Addr().String(), stop)
		time.Sleep(20 * time.Millisecond) // the flood is under way before the first rank dials
		begin := time.Now()
		ms := make([]*Member, 8)
		errs := make([]error, 8)
		var wg sync.WaitGroup
		for r := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				opt := fastOptions()
				opt.JoinTimeout = 20 * time.Second
				ms[r], errs[r] = Dial(context.Background(), c.Addr().String(), testHello(r), testSecret(), opt)
			}()
		}
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		_, joinErr := c.Join(ctx)
		cancel()
		took := time.Since(begin)
		close(stop)
		n := made()
		for _, m := range ms {
			if m != nil {
				_ = m.Close()
			}
		}
		c.Close("")
		for r, err := range errs {
			if err != nil {
				t.Errorf("round %d: rank %d: %v", round, r, err)
			}
		}
		if joinErr != nil {
			t.Errorf("round %d: join: %v", round, c.JoinError(joinErr))
		}
		refused := c.Rejected()["127.0.0.1"]
		t.Logf("round %d: joined in %v under %d stranger connections (%d refused, %d log lines)",
			round, took.Round(time.Millisecond), n, refused, log.Len())
		if refused == 0 || log.Len() > 40 {
			t.Errorf("round %d: %d refusals and %d log lines", round, refused, log.Len())
		}
	}
}

// TestFloodDuringBarriers keeps strangers connecting while the joined ranks
// run barriers: the barriers complete and the job does not fail.
func TestFloodDuringBarriers(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	log := &fakerank.Log{}
	c := startCoordinator(t, testConfig(4, log))
	addr := c.Addr().String()
	startRanks(t, addr, 4, fastOptions(), echo)
	join(t, c)

	stop := make(chan struct{})
	made := flood(addr, stop)
	for round := range 20 {
		callEcho(t, c, round)
	}
	close(stop)
	n := made()
	if c.Err() != nil {
		t.Fatalf("strangers failed the job: %v", c.Err())
	}
	t.Logf("%d strangers connected during the barriers", n)
	log.WaitFor(t, "not an ioswarm hello", 1, wait)
}

// TestJoinErrorNamesStrangers: a join that fails while strangers were
// being refused says so.
func TestJoinErrorNamesStrangers(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(2, &fakerank.Log{}))
	conn := dialRaw(t, c.Addr().String())
	_ = conn.Close()
	waitRejected(t, c, "127.0.0.1", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Join(ctx)
	err = c.JoinError(err)
	var se *StrangerError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "refused 1 connections that did not prove the job secret: 1 from 127.0.0.1") {
		t.Fatalf("got %v", err)
	}
	if c.JoinError(nil) != nil {
		t.Fatal("JoinError(nil) is not nil")
	}
}

// TestReplayedHandshake records the bytes a genuine rank sent while
// joining one coordinator and replays them: to the same coordinator, the
// Hello is known and refused at once; to another coordinator of the same
// job (the same secret), the Hello verifies but the fresh coordinator
// nonce makes the recorded proof useless.
func TestReplayedHandshake(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	firstLog := &fakerank.Log{}
	first := startCoordinator(t, testConfig(2, firstLog))
	p := startProxy(t, first.Addr().String())
	startRank(t, p.addr(), 0, fastOptions(), echo)
	recorded := p.recorded()
	if len(recorded) < 2*headerLen+helloHead+macLen {
		t.Fatalf("recorded only %d bytes of the handshake", len(recorded))
	}

	again := dialRaw(t, first.Addr().String())
	_ = again.SetDeadline(time.Now().Add(wait))
	if _, err := again.Write(recorded); err != nil {
		t.Fatal(err)
	}
	if typ, _, err := newTransport(again).read(); err == nil {
		t.Fatalf("coordinator answered a replayed hello with %s", msgName(typ))
	}
	firstLog.WaitFor(t, "refused a connection from 127.0.0.1: a replayed hello", 1, wait)

	log := &fakerank.Log{}
	second := startCoordinator(t, testConfig(2, log))
	conn := dialRaw(t, second.Addr().String())
	_ = conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write(recorded); err != nil {
		t.Fatal(err)
	}
	// The coordinator answers the replayed Hello with a fresh challenge,
	// then hangs up on the stale proof instead of welcoming anyone.
	tr := newTransport(conn)
	if _, err := expect(tr, msgChallenge); err != nil {
		t.Fatal(err)
	}
	if typ, _, err := tr.read(); err == nil {
		t.Fatalf("coordinator answered a replayed proof with %s", msgName(typ))
	}
	log.WaitFor(t, "wrong proof after a valid hello", 1, wait)

	// Rank 0's slot is still free on the second coordinator.
	startRanks(t, second.Addr().String(), 2, fastOptions(), echo)
	join(t, second)
	callEcho(t, second, 0)
}

// TestSlowHandshakeIsCut trickles a valid-looking frame one byte at a
// time: the handshake deadline is absolute, so trickling cannot extend it.
func TestSlowHandshakeIsCut(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	log := &fakerank.Log{}
	cfg := testConfig(1, log)
	cfg.HandshakeTimeout = 300 * time.Millisecond
	c := startCoordinator(t, cfg)
	conn := dialRaw(t, c.Addr().String())
	var hdr [headerLen]byte
	binary.BigEndian.PutUint32(hdr[:4], 1000)
	hdr[4] = msgHello
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		for i := 0; ; i++ {
			b := byte('x')
			if i < len(hdr) {
				b = hdr[i]
			}
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
			// A read that ends means the coordinator hung up.
			_ = conn.SetReadDeadline(time.Now().Add(time.Millisecond))
			if _, err := conn.Read(make([]byte, 1)); err == io.EOF {
				return
			}
		}
	}()
	waitClosed(t, closed, "the coordinator hanging up on a trickling stranger")
	log.WaitFor(t, "refused a connection from 127.0.0.1: sent no hello", 1, wait)
	startRank(t, c.Addr().String(), 0, fastOptions(), echo)
	join(t, c)
}
