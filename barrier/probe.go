package barrier

import (
	"context"
	"fmt"
	"math"
	"time"
)

// probeCount is the number of ping-pongs per clock probe. The sample with
// the smallest round trip is the one least disturbed by scheduling and
// queueing, so more samples only tighten the bound.
const probeCount = 16

// pong is one clock-probe sample: coordinator send time (echoed), the
// rank's clock when it answered, coordinator receive time.
type pong struct {
	sent, rank, recv int64
}

// probe measures the rank's clock against the coordinator's with
// probeCount ping-pongs.
func (s *session) probe(ctx context.Context) (offset, bound int64, err error) {
	for len(s.pongs) > 0 { // stale replies from an interrupted probe
		<-s.pongs
	}
	samples := make([]pong, 0, probeCount)
	for range probeCount {
		sent := s.c.cfg.Now()
		if err := s.t.write(msgPing, putTimes(sent)); err != nil {
			return 0, 0, fmt.Errorf("clock probe: %w", err)
		}
		p, err := s.awaitPong(ctx, sent)
		if err != nil {
			return 0, 0, err
		}
		samples = append(samples, p)
	}
	offset, bound = estimateOffset(samples)
	return offset, bound, nil
}

// estimateOffset takes the sample with the smallest round trip and assumes
// the rank read its clock halfway through it; the estimate is then wrong
// by at most half that round trip, which is the bound.
func estimateOffset(samples []pong) (offset, bound int64) {
	best := int64(math.MaxInt64)
	for _, p := range samples {
		if rtt := p.recv - p.sent; rtt < best {
			best = rtt
			offset = p.rank - (p.sent + rtt/2)
		}
	}
	return offset, (best + 1) / 2
}

// awaitPong waits for the reply to the ping sent at sent, skipping any
// stale one, for at most the session timeout.
func (s *session) awaitPong(ctx context.Context, sent int64) (pong, error) {
	timer := time.NewTimer(s.c.cfg.Timeout)
	defer timer.Stop()
	for {
		select {
		case p := <-s.pongs:
			if p.sent == sent {
				return p, nil
			}
		case <-s.readerDone:
			return pong{}, fmt.Errorf("connection ended during clock probe")
		case <-ctx.Done():
			return pong{}, fmt.Errorf("clock probe: %w", ctx.Err())
		case <-timer.C:
			return pong{}, fmt.Errorf("no clock probe reply within %v", s.c.cfg.Timeout)
		}
	}
}
