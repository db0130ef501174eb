package barrier

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

func TestJoinAndCallsInRankOrder(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	const n = 8
	log := &fakerank.Log{}
	c := startCoordinator(t, testConfig(n, log))
	startRanks(t, c.Addr().String(), n, fastOptions(), echo)

	infos := join(t, c)
	if len(infos) != n {
		t.Fatalf("got %d infos, want %d", len(infos), n)
	}
	for r, info := range infos {
		if info.Rank != r || info.Host != testHello(r).Host || !strings.HasPrefix(info.Addr, "127.0.0.1:") {
			t.Errorf("info[%d] = %+v", r, info)
		}
		// Same machine, same clock: the true offset is 0, so the estimate
		// must lie within its own error bound (plus scheduling slack).
		if abs(info.ClockOffset) > info.ClockError+int64(time.Millisecond) {
			t.Errorf("rank %d: offset %d ns outside its bound %d ns", r, info.ClockOffset, info.ClockError)
		}
	}
	for round := range 5 {
		callEcho(t, c, round)
	}
	if c.Err() != nil {
		t.Fatalf("coordinator failed: %v", c.Err())
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestCallIsABarrier checks the barrier property itself: no rank sees the
// request of round k+1 before every rank has replied to round k, and Call
// returns only after the slowest rank replied.
func TestCallIsABarrier(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	const n, rounds = 8, 6
	var replied [rounds]atomic.Int32
	var violations atomic.Int32
	h := func(rank int, r *Request) (any, error) {
		var round int
		if err := json.Unmarshal(r.Body, &round); err != nil {
			return nil, err
		}
		if round > 0 && replied[round-1].Load() != n {
			violations.Add(1)
		}
		// The slow rank changes every round, so each round waits on
		// someone else.
		if rank == round%n {
			time.Sleep(150 * time.Millisecond)
		}
		replied[round].Add(1)
		return round, nil
	}
	c := startCoordinator(t, testConfig(n, &fakerank.Log{}))
	startRanks(t, c.Addr().String(), n, fastOptions(), h)
	join(t, c)
	for round := range rounds {
		replies, err := c.Call(context.Background(), "round", func(int) any { return round })
		if err != nil {
			t.Fatal(err)
		}
		if got := replied[round].Load(); got != n {
			t.Fatalf("Call of round %d returned after %d of %d replies", round, got, n)
		}
		for r, raw := range replies {
			if string(raw) != string(mustJSON(t, round)) {
				t.Fatalf("round %d rank %d replied %s", round, r, raw)
			}
		}
	}
	if v := violations.Load(); v != 0 {
		t.Fatalf("%d ranks saw a round before the previous one completed", v)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestErrorReply checks an error reply becomes *RankError at once, without
// waiting for a rank that is still working, and that the late reply of
// that rank cannot confuse the next call.
func TestErrorReply(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	release := make(chan struct{})
	var once sync.Once
	h := func(rank int, r *Request) (any, error) {
		switch {
		case r.Kind == "fail" && rank == 3:
			return nil, errors.New("disk full")
		case r.Kind == "fail" && rank == 1:
			<-release
			return "late", nil
		}
		return r.Body, nil
	}
	c := startCoordinator(t, testConfig(4, &fakerank.Log{}))
	startRanks(t, c.Addr().String(), 4, fastOptions(), h)
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	join(t, c)

	_, err := c.Call(context.Background(), "fail", nil)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 3 || re.Host != "node03" || re.Msg != "disk full" {
		t.Fatalf("got %v, want RankError of rank 3", err)
	}
	if want := "host node03 rank 3: disk full"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	if c.Err() != nil {
		t.Fatalf("an error reply must not fail the job: %v", c.Err())
	}
	once.Do(func() { close(release) }) // rank 1 now replies to a finished call
	for round := range 3 {
		callEcho(t, c, round)
	}
}

func TestNotes(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(2, &fakerank.Log{}))
	ms := startRanks(t, c.Addr().String(), 2, fastOptions(), echo)
	join(t, c)
	if err := ms[1].Notify("progress", map[string]int64{"bytes": 4096}); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-c.Notes():
		if n.Rank != 1 || n.Kind != "progress" || string(n.Body) != `{"bytes":4096}` {
			t.Fatalf("note %+v body %s", n, n.Body)
		}
	case <-time.After(wait):
		t.Fatal("no note arrived")
	}
}

func TestCallBeforeJoinAndJoinTimeout(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(3, &fakerank.Log{}))
	startRanks(t, c.Addr().String(), 2, fastOptions(), echo)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Join(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "missing rank 2") {
		t.Fatalf("join: %v", err)
	}
	_, err = c.Call(context.Background(), "echo", nil)
	if err == nil || !strings.Contains(err.Error(), "only 2 of 3 ranks have joined") {
		t.Fatalf("call before join: %v", err)
	}
}

func TestProbeClocks(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	c := startCoordinator(t, testConfig(3, &fakerank.Log{}))
	startRanks(t, c.Addr().String(), 3, fastOptions(), echo)
	join(t, c)
	infos, err := c.ProbeClocks(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for r, info := range infos {
		if info.Rank != r || info.ClockError <= 0 || abs(info.ClockOffset) > info.ClockError+int64(time.Millisecond) {
			t.Errorf("rank %d: %+v", r, info)
		}
	}
	callEcho(t, c, 0) // probing leaves the sessions usable
	// Probing rank 1 alone leaves the others' estimates as they were.
	again, err := c.ProbeClocks(context.Background(), func(r int) bool { return r == 1 })
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []int{0, 2} {
		if again[r] != infos[r] {
			t.Errorf("rank %d was not to be probed: %+v, before %+v", r, again[r], infos[r])
		}
	}
	if i := again[1]; i.ClockError <= 0 || abs(i.ClockOffset) > i.ClockError+int64(time.Millisecond) {
		t.Errorf("rank 1 probed alone: %+v", i)
	}
}

func TestConfigErrors(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	base := testConfig(2, &fakerank.Log{})
	cases := map[string]func(*Config){
		"too short":            func(c *Config) { c.Secret = []byte("short") },
		"need at least 1":      func(c *Config) { c.Ranks = 0 },
		"empty job ID":         func(c *Config) { c.JobID = "" },
		"must be shorter than": func(c *Config) { c.Heartbeat = c.Timeout },
	}
	for want, mutate := range cases {
		cfg := base
		mutate(&cfg)
		c, err := Listen(context.Background(), "127.0.0.1:0", cfg)
		if err == nil {
			c.Close("")
			t.Errorf("%s: Listen accepted the config", want)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestUnencodableBodySendsNothing: a body that cannot be encoded fails the
// Call before any rank gets a request.
func TestUnencodableBodySendsNothing(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	var got atomic.Int32
	h := func(rank int, r *Request) (any, error) {
		got.Add(1)
		return r.Body, nil
	}
	c := startCoordinator(t, testConfig(3, &fakerank.Log{}))
	startRanks(t, c.Addr().String(), 3, fastOptions(), h)
	join(t, c)
	_, err := c.Call(context.Background(), "bad", func(rank int) any {
		if rank == 2 {
			return make(chan int)
		}
		return rank
	})
	if err == nil || !strings.Contains(err.Error(), `call "bad": encode body for rank 2`) {
		t.Fatalf("got %v", err)
	}
	callEcho(t, c, 0) // every rank answers this one; a stray "bad" request would arrive first
	if n := got.Load(); n != 3 {
		t.Fatalf("ranks handled %d requests, want only the 3 of the echo call", n)
	}
}
