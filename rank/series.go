package rank

// Series asks for a phase's time series: the operations every thread of
// the rank had completed by each of N boundaries Start+Step, Start+2·Step,
// ... (rank clock), from the threads' operation logs.
type Series struct {
	Start int64 `json:"start"`
	Step  int64 `json:"step"`
	N     int   `json:"n"`
}

// SeriesReply holds, per boundary, the operations the rank's threads had
// completed by then, summed over its threads: cumulative counts, which
// add up exactly across ranks where rates would not.
type SeriesReply struct {
	Ops []int64 `json:"ops"`
}

// maxSeries bounds the boundaries one request may ask for, so a damaged
// request cannot make a rank allocate without limit.
const maxSeries = 100000

// series answers a Series request. A thread's count is capped at its
// timed operations: what it did after a stonewall is in no figure.
func (s *state) series(req Series) SeriesReply {
	n := min(max(req.N, 0), maxSeries)
	out := SeriesReply{Ops: make([]int64, n)}
	for k := range out.Ops {
		at := req.Start + int64(k+1)*req.Step
		for _, w := range s.workers {
			if at >= w.rec.EndNS {
				// Done by then: exact even where the log keeps every
				// stride-th operation only.
				out.Ops[k] += w.rec.Ops
				continue
			}
			out.Ops[k] += min(w.log.opsAt(at), w.rec.Ops)
		}
	}
	return out
}
