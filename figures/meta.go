package figures

import (
	"fmt"
	"math"

	"ioswarm/result"
	"ioswarm/wire"
)

// IsMetadata says whether a phase counts metadata operations (files
// created, statted, read or deleted) rather than bytes.
func IsMetadata(name string) bool { return wire.Phase(name).IsMeta() }

// reduceMetadata sets the figures of a metadata phase from its threads:
// ops_per_sec = ops / window (as IOPS), first_done_ops_per_sec = the
// operations done by all threads when the first finished / (that moment
// − earliest start), and the spread of the threads' own rates. window and
// toFirst are the phase's, already checked positive. Other phases get
// none of these.
func reduceMetadata(p *result.Phase, window, toFirst int64) error {
	if !IsMetadata(p.Name) {
		p.OpsPerSec, p.FirstDoneOpsPerSec, p.ThreadOpsPerSec = 0, 0, nil
		return nil
	}
	var ops, first int64
	s := result.Spread{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, th := range p.Threads {
		if th.OpsAtFirstDone < 0 || th.OpsAtFirstDone > th.Ops {
			return fmt.Errorf("thread %d (host %q rank %d): ops_at_first_done %d outside [0, ops %d]",
				th.Thread, th.Host, th.Rank, th.OpsAtFirstDone, th.Ops)
		}
		ops += th.Ops
		first += th.OpsAtFirstDone
		r := Rate(th.Ops, th.EndNS-th.StartNS) // positive: scan checked it
		s.Min, s.Max, s.Mean = min(s.Min, r), max(s.Max, r), s.Mean+r
	}
	s.Mean /= float64(len(p.Threads))
	p.OpsPerSec = Rate(ops, window)
	p.FirstDoneOpsPerSec = Rate(first, toFirst)
	p.ThreadOpsPerSec = &s
	return nil
}
