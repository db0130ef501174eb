package coordinator

import "ioswarm/result"

// depthAchieved sets the phase's achieved queue depth from its threads':
// the mean over every submission of every thread (each thread's mean
// weighted by its samples, so the figure is exact) and the largest.
func depthAchieved(p *result.Phase) {
	var sum float64
	var n int64
	for _, t := range p.Threads {
		sum += t.IODepthAchievedMean * float64(t.IODepthSamples)
		n += t.IODepthSamples
		p.IODepthAchievedMax = max(p.IODepthAchievedMax, t.IODepthAchievedMax)
	}
	if n > 0 {
		p.IODepthAchievedMean = sum / float64(n)
	}
}
