package figures

import (
	"testing"

	"ioswarm/result"
)

// The kernel-side depth of a phase is that of all its threads' samples
// and time together: at submission weighted by submissions, over time by
// span, not a plain mean of the threads' means.
func TestDepthInKernelWeightsThreads(t *testing.T) {
	p := result.Phase{Threads: []result.Thread{
		{IODepthKernelAtSubmitMean: 4, IODepthKernelAtSubmitMax: 8, IODepthKernelSamples: 10, IODepthKernelTimeMean: 6, IODepthKernelSpanNS: 100},
		{IODepthKernelAtSubmitMean: 8, IODepthKernelAtSubmitMax: 9, IODepthKernelSamples: 30, IODepthKernelTimeMean: 2, IODepthKernelSpanNS: 300},
		{}, // a thread that submitted nothing weighs nothing
	}}
	ReduceDepth(&p)
	wantAtSubmit := (4.0*10 + 8.0*30) / 40
	wantOverTime := (6.0*100 + 2.0*300) / 400
	if p.IODepthKernelAtSubmitMean != wantAtSubmit || p.IODepthKernelAtSubmitMax != 9 || p.IODepthKernelTimeMean != wantOverTime {
		t.Errorf("at submit %.3f max %d, over time %.3f; want %.3f, 9, %.3f",
			p.IODepthKernelAtSubmitMean, p.IODepthKernelAtSubmitMax, p.IODepthKernelTimeMean, wantAtSubmit, wantOverTime)
	}
}
