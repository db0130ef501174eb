package barrier

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
// join and run barriers. None of the strangers joins, all are logged, and
// the real ranks need not wait for the strangers' handshake deadline.
func TestStrangersCannotStallJoin(t *testing.T) {
	guard(t, 60*time.Second)
	log := &logSink{}
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

	// 100 idle strangers never leave a slot by themselves: 36 of them
	// must have been dropped to keep at most 64 in handshake.
	log.waitFor(t, "connections already in handshake; dropped the oldest", len(idle)-maxHandshakes)
	c.mu.Lock()
	inHandshake := len(c.handshake)
	c.mu.Unlock()
	if inHandshake > maxHandshakes {
		t.Fatalf("%d connections in handshake, limit %d", inHandshake, maxHandshakes)
	}
	log.waitFor(t, "rejected connection from "+garbage.LocalAddr().String()+":", 1)
	log.waitFor(t, "rejected connection from "+huge.LocalAddr().String()+
		": read hello: frame of 4294967295 bytes exceeds the 4096-byte limit", 1)
	for _, conn := range idle {
		_ = conn.Close()
	}
	for _, conn := range idle {
		log.waitFor(t, "rejected connection from "+conn.LocalAddr().String()+":", 1)
	}
	if c.Err() != nil {
		t.Fatalf("strangers failed the job: %v", c.Err())
	}
}

// TestFloodDuringBarriers keeps strangers connecting while the joined ranks
// run barriers: the barriers complete and the job does not fail.
func TestFloodDuringBarriers(t *testing.T) {
	guard(t, 60*time.Second)
	log := &logSink{}
	c := startCoordinator(t, testConfig(4, log))
	addr := c.Addr().String()
	startRanks(t, addr, 4, fastOptions(), echo)
	join(t, c)

	const strangers = 300
	var dialled atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var held []net.Conn
		defer func() {
			for _, conn := range held {
				_ = conn.Close()
			}
		}()
		for i := range strangers {
			select {
			case <-stop:
				return
			default:
			}
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				continue
			}
			held = append(held, conn) // half stay idle, half send a bogus frame
			if i%2 == 0 {
				_, _ = conn.Write([]byte{0, 0, 0, 2, msgProof, 0})
			}
			dialled.Add(1)
		}
	}()
	for round := 0; round < 20 || dialled.Load() < strangers/2; round++ {
		callEcho(t, c, round)
	}
	close(stop)
	wg.Wait()
	if c.Err() != nil {
		t.Fatalf("strangers failed the job: %v", c.Err())
	}
	t.Logf("%d strangers connected during the barriers", dialled.Load())
	log.waitFor(t, "expected hello, got proof", 1)
}

// TestReplayedHandshake records the bytes a genuine rank sent while
// joining one coordinator and replays them to another coordinator of the
// same job: the fresh coordinator nonce makes the recorded proof useless.
func TestReplayedHandshake(t *testing.T) {
	guard(t, 60*time.Second)
	first := startCoordinator(t, testConfig(2, &logSink{}))
	p := startProxy(t, first.Addr().String())
	startRank(t, p.addr(), 0, fastOptions(), echo)
	recorded := p.recorded()
	if len(recorded) < 2*headerLen+nonceLen {
		t.Fatalf("recorded only %d bytes of the handshake", len(recorded))
	}

	log := &logSink{}
	second := startCoordinator(t, testConfig(2, log))
	conn := dialRaw(t, second.Addr().String())
	_ = conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write(recorded); err != nil {
		t.Fatal(err)
	}
	// The coordinator answers the replayed Hello with a fresh challenge,
	// then hangs up on the stale proof instead of welcoming anyone.
	tr := newTransport(conn)
	var ch challengeMsg
	if err := expect(tr, msgChallenge, &ch); err != nil {
		t.Fatal(err)
	}
	if typ, _, err := tr.read(); err == nil {
		t.Fatalf("coordinator answered a replayed proof with %s", msgName(typ))
	}
	log.waitFor(t, "rejected connection from "+conn.LocalAddr().String()+": bad secret", 1)

	// Rank 0's slot is still free on the second coordinator.
	startRanks(t, second.Addr().String(), 2, fastOptions(), echo)
	join(t, second)
	callEcho(t, second, 0)
}

// TestSlowHandshakeIsCut trickles a valid-looking frame one byte at a
// time: the handshake deadline is absolute, so trickling cannot extend it.
func TestSlowHandshakeIsCut(t *testing.T) {
	guard(t, 30*time.Second)
	log := &logSink{}
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
	log.waitFor(t, "no hello within the handshake timeout", 1)
	startRank(t, c.Addr().String(), 0, fastOptions(), echo)
	join(t, c)
}
