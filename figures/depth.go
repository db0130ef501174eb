package figures

import "ioswarm/result"

// ReduceDepth sets an io_uring phase's queue depth figures from its
// threads' records: the depth achieved, the mean over every submission of
// every thread (each thread's mean weighted by its samples, so the figure
// is exact) and the largest, and the depth the kernel held (depthInKernel).
func ReduceDepth(p *result.Phase) {
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
	depthInKernel(p)
}

// depthInKernel sets the phase's depth as the kernel held it from its
// threads': at submission, each thread's mean weighted by its
// submissions, and over time, each thread's mean weighted by its span,
// so both are the figures of all threads' samples and time together.
func depthInKernel(p *result.Phase) {
	var atSubmit, overTime float64
	var samples, span int64
	for _, t := range p.Threads {
		atSubmit += t.IODepthKernelAtSubmitMean * float64(t.IODepthKernelSamples)
		samples += t.IODepthKernelSamples
		overTime += t.IODepthKernelTimeMean * float64(t.IODepthKernelSpanNS)
		span += t.IODepthKernelSpanNS
		p.IODepthKernelAtSubmitMax = max(p.IODepthKernelAtSubmitMax, t.IODepthKernelAtSubmitMax)
	}
	if samples > 0 {
		p.IODepthKernelAtSubmitMean = atSubmit / float64(samples)
	}
	if span > 0 {
		p.IODepthKernelTimeMean = overTime / float64(span)
	}
}
