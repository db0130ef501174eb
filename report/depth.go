package report

import "ioswarm/result"

// depthShown is the depth a table prints for an io_uring phase: the
// kernel's count of requests handed to it and not yet posted, averaged
// over time, which can fall short of the depth asked. Files from before
// it was measured have only the ring's count (requests not yet reaped,
// which stays at the depth asked): that is what they show.
func depthShown(p *result.Phase) float64 {
	if p.IODepthKernelTimeMean > 0 {
		return p.IODepthKernelTimeMean
	}
	return p.IODepthAchievedMean
}
