package rank

import (
	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// maxIntervals bounds the intervals a thread keeps (an hour of seconds):
// past it, the last interval takes every later operation.
const maxLatencyIntervals = 3600

// latencyIntervals is one worker's latency per interval of a random
// phase. Only the interval under way is a full histogram (58 KiB, reused
// from interval to interval and phase to phase); each finished one is
// kept sparse, its non-empty buckets only: a few KiB for the latencies of
// real storage, where full ones would hold 209 MiB a thread over an
// hour-long phase.
type latencyIntervals struct {
	cur  *histogram.Histogram
	curK int                 // the interval cur holds, if live
	live bool                // whether cur holds an interval
	done []*result.Histogram // finished intervals by index; nil where none
}

// reset empties the intervals for a new phase.
func (iv *latencyIntervals) reset() {
	if iv.cur != nil {
		iv.cur.Reset()
	}
	iv.live = false
	clear(iv.done)
	iv.done = iv.done[:0]
}

// record adds one latency to interval k. It allocates only when the
// interval changes (once a second at most, never per operation): the
// finished interval's sparse form.
func (iv *latencyIntervals) record(k int, latency int64) {
	if !iv.live || k != iv.curK {
		iv.switchTo(k)
	}
	iv.cur.Record(latency)
}

// switchTo stores the interval under way and makes k the one under way,
// taking back what k already holds: operations reaped out of their
// intervals' order stay in their own interval.
func (iv *latencyIntervals) switchTo(k int) {
	iv.finish()
	if iv.cur == nil {
		iv.cur = histogram.New()
	}
	if k < len(iv.done) && iv.done[k] != nil {
		// Our own sparse form of a full histogram: it cannot be refused.
		_ = iv.cur.MergeSparse(iv.done[k])
		iv.done[k] = nil
	}
	iv.curK, iv.live = k, true
}

// finish stores the interval under way in its sparse form.
func (iv *latencyIntervals) finish() {
	if !iv.live {
		return
	}
	for len(iv.done) <= iv.curK {
		iv.done = append(iv.done, nil)
	}
	iv.done[iv.curK] = iv.cur.Sparse()
	iv.cur.Reset()
	iv.live = false
}

// recordInterval adds one operation's latency to its interval's
// histogram.
func (w *worker) recordInterval(p *phaseParams, t1, latency int64) {
	k := int((t1 - p.intervalStart) / wire.LatencyStep)
	w.intervals.record(min(max(k, 0), maxLatencyIntervals-1), latency)
}

// intervalReply merges the workers' interval histograms, interval by
// interval; nil when no worker kept any.
func (s *state) intervalReply() []*result.Histogram {
	n := 0
	for _, w := range s.workers {
		w.intervals.finish()
		n = max(n, len(w.intervals.done))
	}
	if n == 0 {
		return nil
	}
	out := make([]*result.Histogram, n)
	m := histogram.New()
	for k := range out {
		m.Reset()
		for _, w := range s.workers {
			if done := w.intervals.done; k < len(done) && done[k] != nil {
				_ = m.MergeSparse(done[k]) // our own sparse forms
			}
		}
		out[k] = m.Sparse()
	}
	return out
}
