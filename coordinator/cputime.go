package coordinator

import (
	"ioswarm/result"
	"ioswarm/wire"
)

// cpuTimeOf copies a thread's CPU time and the wall time it was taken
// over into th. Both are durations on the rank's own clock, so no clock
// offset applies.
func cpuTimeOf(th *result.Thread, tr wire.ThreadRecord) {
	th.CPUNS, th.CPUWallNS = tr.CPUNS, tr.CPUWallNS
}
