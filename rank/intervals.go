package rank

import (
	"sync"

	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// maxIntervals bounds the intervals a thread keeps (an hour of seconds):
// past it, the last interval takes every later operation.
const maxLatencyIntervals = 3600

// recentIntervals is how many intervals a rank keeps as full histograms,
// where its workers add theirs. A worker adds each interval when its next
// begins, so the adds to one interval come within about a second of each
// other, unless one operation outlasts several intervals.
const recentIntervals = 8

// latencyStore is a rank's latency per interval of a random phase, its
// workers' merged: what the rank sends. Each worker records into a full
// histogram of its own (nothing shared per operation) and adds it here
// when its interval changes, once a second at most; the rank keeps the
// recent intervals full and the older ones sparse, their non-empty
// buckets only. So the memory grows by about one sparse histogram a
// second (tens of KiB at most) however many threads the rank runs, where
// a full one per thread and second took 209 MiB a thread over an
// hour-long phase.
type latencyStore struct {
	mu     sync.Mutex
	recent [recentIntervals]recentInterval // interval k in slot k % recentIntervals
	done   []*result.Histogram             // older intervals, by index; nil where none
	work   *histogram.Histogram            // where an add meets its interval's sparse form
}

type recentInterval struct {
	k    int
	live bool
	h    *histogram.Histogram
}

// reset empties the store for a new phase.
func (s *latencyStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.recent {
		s.recent[i].live = false
		if h := s.recent[i].h; h != nil {
			h.Reset()
		}
	}
	clear(s.done)
	s.done = s.done[:0]
}

// add merges h, a worker's interval k, into the rank's interval k.
func (s *latencyStore) add(k int, h *histogram.Histogram) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &s.recent[k%recentIntervals]
	if r.live && r.k != k {
		if r.k > k {
			// k is no longer recent: a worker's operation outlasted
			// recentIntervals intervals.
			s.mergeDone(k, h)
			return
		}
		s.retire(r)
	}
	if r.h == nil {
		r.h = histogram.New()
	}
	r.k, r.live = k, true
	r.h.Merge(h)
}

// retire stores a recent interval in its sparse form; s.mu is held.
func (s *latencyStore) retire(r *recentInterval) {
	s.mergeDone(r.k, r.h)
	r.h.Reset()
	r.live = false
}

// mergeDone adds h to interval k's sparse form; s.mu is held.
func (s *latencyStore) mergeDone(k int, h *histogram.Histogram) {
	for len(s.done) <= k {
		s.done = append(s.done, nil)
	}
	if s.done[k] == nil {
		s.done[k] = h.Sparse()
		return
	}
	if s.work == nil {
		s.work = histogram.New()
	}
	s.work.Reset()
	s.work.Merge(h)
	_ = s.work.MergeSparse(s.done[k]) // made by Sparse: it cannot be refused
	s.done[k] = s.work.Sparse()
}

// intervals returns every interval in order, empty ones included, once
// the workers have added their last (flushInterval); nil when there is
// none.
func (s *latencyStore) intervals() []*result.Histogram {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.recent {
		if s.recent[i].live {
			s.retire(&s.recent[i])
		}
	}
	if len(s.done) == 0 {
		return nil
	}
	out := make([]*result.Histogram, len(s.done))
	var empty *result.Histogram // one for every interval with no operation
	for k, h := range s.done {
		if h == nil {
			if empty == nil {
				empty = histogram.New().Sparse()
			}
			h = empty
		}
		out[k] = h
	}
	return out
}

// workerInterval is the interval a worker is recording into.
type workerInterval struct {
	h    *histogram.Histogram // allocated once, reused
	k    int
	live bool
}

// reset empties the interval for a new phase.
func (iv *workerInterval) reset() {
	if iv.h != nil {
		iv.h.Reset()
	}
	iv.live = false
}

// recordInterval adds one operation's latency to its interval's
// histogram. It allocates nothing; when the interval changes, the
// finished one goes to the rank's store.
func (w *worker) recordInterval(p *phaseParams, t1, latency int64) {
	k := int((t1 - p.intervalStart) / wire.LatencyStep)
	k = min(max(k, 0), maxLatencyIntervals-1)
	iv := &w.interval
	if !iv.live || k != iv.k {
		w.flushInterval(p.latency)
		if iv.h == nil {
			iv.h = histogram.New()
		}
		iv.k, iv.live = k, true
	}
	iv.h.Record(latency)
}

// flushInterval adds the worker's interval under way to s.
func (w *worker) flushInterval(s *latencyStore) {
	iv := &w.interval
	if !iv.live {
		return
	}
	s.add(iv.k, iv.h)
	iv.h.Reset()
	iv.live = false
}

// intervalReply is the rank's intervals of the phase: every worker's last
// added, then all of them; nil when no worker kept any.
func (s *state) intervalReply() []*result.Histogram {
	for _, w := range s.workers {
		w.flushInterval(&s.latency)
	}
	return s.latency.intervals()
}
