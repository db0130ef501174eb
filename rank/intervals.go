package rank

import (
	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// maxIntervals bounds the intervals a thread keeps (an hour of seconds):
// past it, the last interval takes every later operation.
const maxLatencyIntervals = 3600

// recordInterval adds one operation's latency to its interval's
// histogram. A new histogram is made only when a new interval begins,
// once a second at most, never per operation.
func (w *worker) recordInterval(p *phaseParams, t1, latency int64) {
	k := int((t1 - p.intervalStart) / wire.LatencyStep)
	k = min(max(k, 0), maxLatencyIntervals-1)
	for len(w.ivHist) <= k {
		w.ivHist = append(w.ivHist, nil)
	}
	if w.ivHist[k] == nil {
		w.ivHist[k] = histogram.New()
	}
	w.ivHist[k].Record(latency)
}

// intervalReply merges the workers' interval histograms, interval by
// interval; nil when no worker kept any.
func (s *state) intervalReply() []*result.Histogram {
	n := 0
	for _, w := range s.workers {
		n = max(n, len(w.ivHist))
	}
	if n == 0 {
		return nil
	}
	out := make([]*result.Histogram, n)
	for k := range out {
		m := histogram.New()
		for _, w := range s.workers {
			if k < len(w.ivHist) && w.ivHist[k] != nil {
				m.Merge(w.ivHist[k])
			}
		}
		out[k] = m.Sparse()
	}
	return out
}
