package coordinator

import (
	"context"
	"fmt"
	"time"

	"ioswarm/result"
	"ioswarm/wire"
)

// Series intervals: at most maxIntervals per phase, each a nice length
// (1, 2 or 5 × 10^k ns) of at least minStep. The coordinator then holds
// at most maxIntervals × (1 + nodes) × 2 counts per phase.
const (
	maxIntervals = 500
	minStep      = int64(time.Millisecond)
	perInterval  = 8
)

// seriesStep is the interval for a phase of window ns and ops operations:
// long enough that an interval holds about perInterval completions on
// average (16 MiB records in 1 ms intervals would draw a comb of spikes,
// each one record), within the bounds above.
func seriesStep(window, ops int64) int64 {
	raw := max((window+maxIntervals-1)/maxIntervals, minStep)
	if ops > 0 {
		raw = max(raw, window*perInterval/ops)
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= raw {
				return m * p
			}
		}
	}
}

// series asks every rank how many operations its threads had completed
// at each interval boundary and turns the cumulative counts into the
// phase's series, per node too. A phase whose counts do not add up to its
// own (threads that keep no operation log) gets no series.
func (j *job) series(ctx context.Context, p *result.Phase) error {
	if p.WindowNS <= 0 || p.Ops <= 0 {
		return nil
	}
	step := seriesStep(p.WindowNS, p.Ops)
	n := int((p.WindowNS + step - 1) / step)
	replies, err := callAll[wire.SeriesReply](ctx, j.s.coord, wire.KindSeries, "series", func(r int) any {
		return wire.Series{Start: j.members[r].ToRank(p.StartNS), Step: step, N: n}
	})
	if err != nil {
		return fmt.Errorf("time series: %w", err)
	}
	opBytes := p.Bytes / p.Ops
	s := &result.Series{StartNS: p.StartNS, StepNS: step, Bytes: make([]int64, n), Ops: make([]int64, n)}
	byHost := map[string]*result.HostSeries{}
	for r, rep := range replies {
		if len(rep.Ops) != n {
			return fmt.Errorf("rank %d: bad series reply (%d counts for %d intervals)", r, len(rep.Ops), n)
		}
		if len(j.threads[r]) == 0 {
			continue
		}
		host := j.s.targets[r].Host
		h := byHost[host]
		if h == nil {
			h = &result.HostSeries{Host: host, Bytes: make([]int64, n), Ops: make([]int64, n)}
			byHost[host] = h
			s.ByHost = append(s.ByHost, result.HostSeries{Host: host})
		}
		var prev int64
		for k, c := range rep.Ops {
			d := c - prev
			prev = c
			s.Ops[k] += d
			h.Ops[k] += d
		}
	}
	var total int64
	for k := range s.Ops {
		s.Bytes[k] = s.Ops[k] * opBytes
		total += s.Ops[k]
	}
	if total != p.Ops {
		return nil
	}
	for i := range s.ByHost {
		h := byHost[s.ByHost[i].Host]
		for k := range h.Ops {
			h.Bytes[k] = h.Ops[k] * opBytes
		}
		s.ByHost[i] = *h
	}
	p.Series = s
	return nil
}
