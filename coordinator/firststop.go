package coordinator

import (
	"ioswarm/barrier"
	"ioswarm/result"
	"ioswarm/wire"
)

// firstStopOnCoordinatorClock copies a thread's account under the live
// first-done stop into th, its moments converted as the record's others
// are; a moment the rank left 0 (none) stays 0.
func firstStopOnCoordinatorClock(th *result.Thread, m barrier.MemberInfo, tr wire.ThreadRecord) {
	at := func(t int64) int64 {
		if t == 0 {
			return 0
		}
		return m.FromRank(t)
	}
	th.StonewallBytes, th.StonewallOps = tr.StonewallBytes, tr.StonewallOps
	th.StonewallEndNS, th.RaisedStopNS, th.UntimedEndNS = at(tr.StonewallEndNS), at(tr.RaisedStopNS), at(tr.UntimedEndNS)
}
