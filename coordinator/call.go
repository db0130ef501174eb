package coordinator

import (
	"context"
	"encoding/json"
	"fmt"

	"ioswarm/barrier"
)

// callAll sends every rank the request of kind that body builds for it,
// waits for every reply (barrier.Call), and decodes each into a Rep,
// indexed by rank. what names the reply in the error a reply that does
// not decode gives: "rank 3: bad drop reply: ...".
func callAll[Rep any](ctx context.Context, c *barrier.Coordinator, kind, what string, body func(r int) any) ([]Rep, error) {
	raw, err := c.Call(ctx, kind, body)
	if err != nil {
		return nil, err
	}
	out := make([]Rep, len(raw))
	for r, b := range raw {
		if err := json.Unmarshal(b, &out[r]); err != nil {
			return nil, fmt.Errorf("rank %d: bad %s reply: %w", r, what, err)
		}
	}
	return out, nil
}
