package barrier

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// failConfig has a short timeout so silence is detected quickly.
func failConfig(ranks int, log *fakerank.Log) (Config, DialOptions) {
	cfg := testConfig(ranks, log)
	cfg.Timeout = time.Second
	opt := DialOptions{Heartbeat: 50 * time.Millisecond, Timeout: time.Second}
	return cfg, opt
}

// crash plays the coordinator's process dying: listener and connections
// closed at once, no close frame sent.
func (c *Coordinator) crash() {
	c.mu.Lock()
	members := append([]*session(nil), c.members...)
	c.mu.Unlock()
	_ = c.ln.Close()
	for _, s := range members {
		if s != nil {
			_ = s.t.conn.Close()
		}
	}
}

// TestPartitionedRankFailsJob cuts rank 2 off (its packets dropped both
// ways) during a Call. The coordinator fails the job naming host and rank
// after about Timeout, the Call returns that error, and rank 2 itself
// reports the coordinator lost.
func TestPartitionedRankFailsJob(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	cfg, opt := failConfig(3, &fakerank.Log{})
	c := startCoordinator(t, cfg)
	p := startProxy(t, c.Addr().String())
	hold := make(chan struct{})
	h := func(rank int, r *Request) (any, error) {
		if rank == 2 {
			<-hold // never replies while the link is up
		}
		return "ok", nil
	}
	startRank(t, c.Addr().String(), 0, opt, h)
	startRank(t, c.Addr().String(), 1, opt, h)
	cut := startRank(t, p.addr(), 2, opt, h)
	t.Cleanup(func() { close(hold) }) // runs before the ranks' cleanups wait for handlers
	join(t, c)

	callErr := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "work", nil)
		callErr <- err
	}()
	time.Sleep(3 * cfg.Heartbeat) // let the request reach every rank
	p.freeze()
	frozen := time.Now()

	waitClosed(t, c.Failed(), "coordinator failure")
	took := time.Since(frozen)
	if took < cfg.Timeout/2 || took > cfg.Timeout+5*time.Second {
		t.Errorf("failure noticed after %v, timeout is %v", took, cfg.Timeout)
	}
	var re *RankError
	if err := c.Err(); !errors.As(err, &re) || re.Rank != 2 || re.Host != "node02" ||
		!strings.Contains(re.Msg, "silent for more than 1s") {
		t.Fatalf("coordinator error: %v", err)
	}
	select {
	case err := <-callErr:
		if !errors.As(err, &re) || re.Rank != 2 {
			t.Fatalf("call returned %v", err)
		}
	case <-time.After(wait):
		t.Fatal("the call did not return after the failure")
	}

	waitClosed(t, cut.Done(), "rank 2 noticing the silent coordinator")
	if err := cut.Err(); err == nil || !strings.Contains(err.Error(), "lost coordinator at "+p.addr()) ||
		!strings.Contains(err.Error(), "silent for more than 1s") {
		t.Fatalf("rank 2 error: %v", err)
	}
	// Close's frame cannot reach rank 2: whoever ends the job must learn
	// that it has to stop it another way.
	c.Close("job failed")
	if got := c.Cut(); !slices.Equal(got, []int{2}) {
		t.Errorf("Cut = %v, want [2]", got)
	}
}

// TestLongHandlerKeepsHeartbeating runs a request that takes three
// timeouts to answer: heartbeats come from their own goroutine, so no
// side declares the other silent.
func TestLongHandlerKeepsHeartbeating(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	cfg, opt := failConfig(2, &fakerank.Log{})
	cfg.Timeout, opt.Timeout = 500*time.Millisecond, 500*time.Millisecond
	c := startCoordinator(t, cfg)
	h := func(rank int, r *Request) (any, error) {
		if rank == 1 {
			time.Sleep(3 * cfg.Timeout)
		}
		return rank, nil
	}
	ms := startRanks(t, c.Addr().String(), 2, opt, h)
	join(t, c)
	replies, err := c.Call(context.Background(), "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(replies[1]) != "1" {
		t.Fatalf("replies %s", replies)
	}
	if c.Err() != nil || ms[1].Err() != nil {
		t.Fatalf("a busy rank was declared failed: %v / %v", c.Err(), ms[1].Err())
	}
}

func TestCloseReachesRanks(t *testing.T) {
	for _, reason := range []string{"", "rank 3 on node03 failed: disk full"} {
		t.Run("reason="+reason, func(t *testing.T) {
			fakerank.Guard(t, 30*time.Second)
			c := startCoordinator(t, testConfig(3, &fakerank.Log{}))
			ms := startRanks(t, c.Addr().String(), 3, fastOptions(), echo)
			join(t, c)
			c.Close(reason)
			for r, m := range ms {
				waitClosed(t, m.Done(), "rank session end")
				err := m.Err()
				var ab *AbortError
				switch {
				case reason == "" && err != nil:
					t.Errorf("rank %d: normal close gave %v", r, err)
				case reason != "" && (!errors.As(err, &ab) || ab.Reason != reason):
					t.Errorf("rank %d: got %v, want AbortError %q", r, err, reason)
				}
				if _, open := <-m.Requests(); open {
					t.Errorf("rank %d: Requests still open", r)
				}
			}
			if _, err := c.Call(context.Background(), "echo", nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("call after close: %v", err)
			}
			c.Close(reason) // twice is fine
		})
	}
}

func TestCoordinatorGone(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	cfg, opt := failConfig(2, &fakerank.Log{})
	c := startCoordinator(t, cfg)
	ms := startRanks(t, c.Addr().String(), 2, opt, echo)
	join(t, c)
	gone := time.Now()
	c.crash()
	for r, m := range ms {
		waitClosed(t, m.Done(), "rank noticing the coordinator gone")
		err := m.Err()
		if err == nil || !strings.Contains(err.Error(), "lost coordinator at "+c.Addr().String()) {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if took := time.Since(gone); took > cfg.Timeout+5*time.Second {
		t.Fatalf("ranks noticed after %v", took)
	}
}

// TestRankCancelled ends a rank's context: it hangs up without a goodbye,
// which the coordinator must treat as a lost rank.
func TestRankCancelled(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(2, &fakerank.Log{}))
	startRank(t, c.Addr().String(), 0, fastOptions(), echo)
	ctx, cancel := context.WithCancel(context.Background())
	m, err := Dial(ctx, c.Addr().String(), testHello(1), testSecret(), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	fakerank.Serve(t, m, 1, echo)
	join(t, c)
	cancel()
	waitClosed(t, c.Failed(), "coordinator noticing the lost rank")
	var re *RankError
	if err := c.Err(); !errors.As(err, &re) || re.Rank != 1 || !strings.Contains(re.Msg, "connection lost") {
		t.Fatalf("coordinator error: %v", err)
	}
	waitClosed(t, m.Done(), "rank session end")
	if err := m.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("rank error: %v", err)
	}
}

// TestRankGoodbye: a rank that leaves normally is no failure, but a Call
// can no longer include it, and a Call it leaves in the middle of ends.
func TestRankGoodbye(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(3, &fakerank.Log{}))
	var leaver *Member
	var mu sync.Mutex
	h := func(rank int, r *Request) (any, error) {
		if rank == 2 && r.Kind == "leave" {
			mu.Lock()
			defer mu.Unlock()
			return nil, leaver.Close() // leaves without replying
		}
		return r.Body, nil
	}
	ms := startRanks(t, c.Addr().String(), 3, fastOptions(), h)
	mu.Lock()
	leaver = ms[2]
	mu.Unlock()
	join(t, c)

	_, err := c.Call(context.Background(), "leave", nil)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 2 || re.Msg != "rank left the job before replying" {
		t.Fatalf("call: %v", err)
	}
	waitClosed(t, leaver.Done(), "leaver's session end")
	if leaver.Err() != nil {
		t.Fatalf("leaver: %v", leaver.Err())
	}
	if c.Err() != nil {
		t.Fatalf("a goodbye failed the job: %v", c.Err())
	}
	if _, err := c.Call(context.Background(), "echo", nil); !errors.As(err, &re) || re.Rank != 2 {
		t.Fatalf("call without rank 2: %v", err)
	}
	// A rank that said goodbye was not cut off: nothing to stop.
	c.Close("")
	if got := c.Cut(); len(got) != 0 {
		t.Errorf("Cut = %v after a goodbye, want none", got)
	}
}

// TestNoGoroutineOutlivesClose counts goroutines: once the members and the
// coordinator are closed, every goroutine they started has ended. Close waits
// for each goroutine's last act, but the runtime still counts a goroutine
// between that act and its return (seen in CI: one parked in goexit1), so the
// count gets a short settle; a goroutine blocked on anything never settles.
func TestNoGoroutineOutlivesClose(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	before := runtime.NumGoroutine()
	c, err := Listen(context.Background(), "127.0.0.1:0", testConfig(3, &fakerank.Log{}))
	if err != nil {
		t.Fatal(err)
	}
	var ms []*Member
	for r := range 3 {
		m, err := Dial(context.Background(), c.Addr().String(), testHello(r), testSecret(), fastOptions())
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	join(t, c)
	if err := ms[0].Close(); err != nil { // one leaves early, the others are closed by the coordinator
		t.Fatal(err)
	}
	c.Close("test over")
	for _, m := range ms[1:] {
		<-m.Done()
		_ = m.Close()
	}
	after := runtime.NumGoroutine()
	for settle := time.Now().Add(2 * time.Second); after > before && time.Now().Before(settle); after = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}
