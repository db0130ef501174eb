package rank

import "ioswarm/wire"

// maxSeries bounds the boundaries one request may ask for, so a damaged
// request cannot make a rank allocate without limit.
const maxSeries = 100000

// series answers a Series request. A thread's count is capped at its
// timed operations: what it did after a stonewall is in no figure.
func (s *state) series(req wire.Series) wire.SeriesReply {
	n := min(max(req.N, 0), maxSeries)
	out := wire.SeriesReply{Ops: make([]int64, n)}
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
