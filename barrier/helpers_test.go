package barrier

import (
	"context"
	"encoding/json"
	"fmt"
	"ioswarm/internal/fakerank"
	"testing"
	"time"
)

const (
	testJob  = "job-7f3a"
	testHash = "5e0b6c1f2d3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	// wait bounds every blocking step of a test; only a hang reaches it.
	wait = 15 * time.Second
)

func testSecret() []byte { return []byte("0123456789abcdef-job-secret") }

func testConfig(ranks int, log *fakerank.Log) Config {
	return Config{
		JobID: testJob, Secret: testSecret(), BinaryHash: testHash, Ranks: ranks,
		Heartbeat: 50 * time.Millisecond, Timeout: 3 * time.Second,
		HandshakeTimeout: 3 * time.Second, SummaryEvery: 100 * time.Millisecond, Logf: log.Logf,
	}
}

func startCoordinator(t *testing.T, cfg Config) *Coordinator {
	t.Helper()
	c, err := Listen(context.Background(), "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close("") })
	return c
}

func testHello(rank int) Hello {
	return Hello{JobID: testJob, Rank: rank, Host: fmt.Sprintf("node%02d", rank), BinaryHash: testHash}
}

func fastOptions() DialOptions {
	return DialOptions{Heartbeat: 50 * time.Millisecond, Timeout: 3 * time.Second}
}

// handler answers one request on a rank.
type handler = fakerank.Handler[*Request]

// echo replies with the request's body.
func echo(_ int, r *Request) (any, error) { return r.Body, nil }

// startRank dials the coordinator as rank and serves its requests with h,
// each in its own goroutine, until the session ends.
func startRank(t *testing.T, addr string, rank int, opt DialOptions, h handler) *Member {
	t.Helper()
	m, err := Dial(context.Background(), addr, testHello(rank), testSecret(), opt)
	if err != nil {
		t.Fatal(err)
	}
	fakerank.Serve(t, m, rank, h)
	return m
}

// startRanks starts ranks 0..n-1 concurrently, as real nodes would.
func startRanks(t *testing.T, addr string, n int, opt DialOptions, h handler) []*Member {
	t.Helper()
	ms := fakerank.DialAll(t, n, func(r int) (*Member, error) {
		return Dial(context.Background(), addr, testHello(r), testSecret(), opt)
	})
	for r, m := range ms {
		fakerank.Serve(t, m, r, h)
	}
	return ms
}

func join(t *testing.T, c *Coordinator) []MemberInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	infos, err := c.Join(ctx)
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	return infos
}

// callEcho runs a Call whose body names the rank and round, and checks
// every rank echoed its own body back, in rank order.
func callEcho(t *testing.T, c *Coordinator, round int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	replies, err := c.Call(ctx, "echo", func(rank int) any {
		return map[string]int{"rank": rank, "round": round}
	})
	if err != nil {
		t.Fatalf("call round %d: %v", round, err)
	}
	for r, raw := range replies {
		var got map[string]int
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("round %d rank %d: reply %s: %v", round, r, raw, err)
		}
		if got["rank"] != r || got["round"] != round {
			t.Fatalf("round %d: reply at index %d is %v", round, r, got)
		}
	}
}

// waitClosed waits for ch to close or fails the test naming what.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wait):
		t.Fatalf("%s did not happen within %v", what, wait)
	}
}
