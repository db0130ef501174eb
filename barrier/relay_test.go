package barrier

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// A note of a relayed kind that one rank sends reaches every rank, the
// sender too, while all of them are busy answering one call (as ranks
// are during a phase), and still reaches Notes; a note of another kind is
// not relayed.
func TestRelayReachesEveryRankDuringACall(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	cfg := testConfig(3, &fakerank.Log{})
	cfg.Relay = []string{"stop"}
	c := startCoordinator(t, cfg)
	var ms []*Member
	phase := func(rank int, _ *Request) (any, error) {
		if rank == 1 {
			if err := ms[1].Notify("progress", 1); err != nil {
				return nil, err
			}
			if err := ms[1].Notify("stop", map[string]int{"from": 1}); err != nil {
				return nil, err
			}
		}
		select {
		case n := <-ms[rank].Relayed():
			return fmt.Sprintf("%s %s", n.Kind, n.Body), nil
		case <-time.After(wait):
			return nil, fmt.Errorf("rank %d: nothing relayed", rank)
		}
	}
	ms = startRanks(t, c.Addr().String(), 3, fastOptions(), phase)
	join(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	replies, err := c.Call(ctx, "phase", nil)
	if err != nil {
		t.Fatal(err)
	}
	for r, raw := range replies {
		var got string
		if err := json.Unmarshal(raw, &got); err != nil || got != `stop {"from":1}` {
			t.Errorf("rank %d got %q (%v), want the stop note first and alone", r, got, err)
		}
	}
	kinds := map[string]bool{}
	for len(kinds) < 2 {
		select {
		case n := <-c.Notes():
			kinds[n.Kind] = true
		case <-time.After(wait):
			t.Fatalf("notes seen: %v; want progress and stop", kinds)
		}
	}
}
