package coordinator

import (
	"encoding/json"
	"time"

	"ioswarm/barrier"
	"ioswarm/clock"
	"ioswarm/wire"
)

// Progress receives live totals during each timed phase. The ranks send
// their counters about once a second over the connections they already
// have; the timed loops only store atomics.
type Progress interface {
	// Start is called as a phase is released; total is the bytes the
	// phase will move if it runs to the end, limit the time after which
	// it stops being timed (its stonewall; 0 = none).
	Start(phase string, iteration int, total int64, limit time.Duration)
	// Update reports the bytes all ranks had moved, elapsed after release.
	Update(done int64, elapsed time.Duration)
	// End is called when the phase's records are in.
	End()
}

// follow feeds p from the ranks' progress notes until stop is closed.
func follow(notes <-chan barrier.Note, p Progress, phase wire.Phase, releaseAt int64, stop <-chan struct{}) {
	latest := map[int]int64{}
	for {
		select {
		case <-stop:
			return
		case n := <-notes:
			if n.Kind != wire.KindProgress {
				continue
			}
			var pr wire.Progress
			if json.Unmarshal(n.Body, &pr) != nil || pr.Phase != phase {
				continue
			}
			latest[n.Rank] = pr.Bytes
			var sum int64
			for _, b := range latest {
				sum += b
			}
			if el := clock.Now() - releaseAt; el > 0 {
				p.Update(sum, time.Duration(el))
			}
		}
	}
}
