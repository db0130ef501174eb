package barrier

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// A rank that stays alive (heartbeats) but whose handler never returns a
// call of a bounded kind ends that call at its CallLimit, with an error
// naming the host and rank that did not answer; the ranks that did are
// not named, and unbounded kinds are not cut.
func TestCallLimitNamesSilentRanks(t *testing.T) {
	fakerank.Guard(t, 60*time.Second)
	cfg := testConfig(3, &fakerank.Log{})
	cfg.CallLimit = func(kind string) time.Duration {
		if kind == "quick" {
			return 300 * time.Millisecond
		}
		return 0
	}
	c := startCoordinator(t, cfg)
	release := make(chan struct{})
	defer close(release)
	startRanks(t, c.Addr().String(), 3, fastOptions(), func(rank int, r *Request) (any, error) {
		if rank != 0 && r.Kind == "quick" {
			<-release // stuck, as on a FIFO
		}
		return "ok", nil
	})
	join(t, c)
	_, err := c.Call(context.Background(), "quick", nil)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 1 || re.Host != "node01" {
		t.Fatalf("call: %v; want a RankError for host node01 rank 1", err)
	}
	for _, want := range []string{`"quick" call: no reply within 300ms`, "nor from node02 rank 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "node00") {
		t.Errorf("error %q names rank 0, which replied", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.Call(ctx, "slow", nil)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an unbounded call cut by its caller: %v", err)
	}
	if c.Err() != nil {
		t.Fatalf("a cut call failed the job: %v", c.Err())
	}
}
