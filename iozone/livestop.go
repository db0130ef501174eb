package iozone

import (
	"ioswarm/figures"
	"ioswarm/result"
)

// liveStop says whether the phase ran under the live first-done stop:
// every record then holds the end of the thread's own time under it.
func liveStop(threads []result.Thread) bool {
	for _, th := range threads {
		if th.StonewallEndNS == 0 {
			return false
		}
	}
	return true
}

// liveChild accounts a thread as IOzone accounts a child under its
// stonewall, from what the live stop recorded: what it had completed when
// the stop reached it, over its start to the end of its own fsync and
// close. The child that raised the stop counts all of it.
func liveChild(th *result.Thread, opsPerSec bool) Child {
	c := Child{Thread: th.Thread, Host: th.Host, Stopped: th.RaisedStopNS == 0}
	c.Xfer = float64(th.StonewallBytes) / 1024
	if opsPerSec {
		c.Xfer = float64(th.StonewallOps)
	}
	c.Throughput = figures.PerSecond(c.Xfer, th.StonewallEndNS-th.StartNS)
	return c
}
