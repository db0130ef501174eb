package rank

import (
	"testing"

	"ioswarm/wire"
)

// The count at submission and its time integral follow the kernel's
// count through a scripted run of entries: each submission counts the
// requests already held plus itself; an entry that waited holds its
// submissions from its start, one that did not takes them evenly across
// it; between entries the count is the one left by the last.
func TestKernelDepthFollowsEntries(t *testing.T) {
	var d kernelDepth
	// t=100..110: 4 taken into an empty kernel without waiting, 1 posted.
	d.entered(100, 110, 0, 4, 3, false)
	// t=130..200: 1 taken beside the 3, all 4 held until 2 post.
	d.entered(130, 200, 3, 1, 2, true)
	// t=200..260: nothing taken, both post.
	d.entered(200, 260, 2, 0, 0, true)
	var rec wire.ThreadRecord
	d.record(&rec)
	// Submissions found 1, 2, 3, 4, then 4.
	if rec.KernelDepthSamples != 5 || rec.KernelDepthMean != 14.0/5 || rec.KernelDepthMax != 4 {
		t.Errorf("at submission: %d samples, mean %.3f, max %d; want 5, 2.8, 4", rec.KernelDepthSamples, rec.KernelDepthMean, rec.KernelDepthMax)
	}
	// 2×10 (0 rising to 4) + 3×20 (between entries) + 4×70 + 2×60 over 160 ns.
	wantArea := 2.0*10 + 3*20 + 4*70 + 2*60
	if rec.KernelDepthSpanNS != 160 || rec.KernelDepthTimeMean != wantArea/160 {
		t.Errorf("over time: span %d mean %.4f; want 160, %.4f", rec.KernelDepthSpanNS, rec.KernelDepthTimeMean, wantArea/160)
	}
}

// A loop's kernel-side depth on a real ring: every submission sampled
// (one per operation when none is retried), the first fill reaching the
// depth asked, and neither figure above what the ring's slots held.
func TestUringKernelDepthOnARing(t *testing.T) {
	const block, ops = 4096, 64
	for _, depth := range []int{1, 8} {
		w := testWorker(t, ops*block)
		uringWorker(t, w, depth, patternPeriod)
		runPhaseOn(t, w, uringPhase("write", block, depth))
		for _, name := range []string{"read", "randread"} {
			runPhaseOn(t, w, uringPhase(name, block, depth))
			r := w.rec
			if r.KernelDepthSamples != ops || r.KernelDepthMax != depth {
				t.Errorf("%s depth %d: %d submissions sampled, max %d; want %d, %d", name, depth, r.KernelDepthSamples, r.KernelDepthMax, ops, depth)
			}
			if r.KernelDepthMean < 1 || r.KernelDepthMean > r.DepthMean || r.KernelDepthTimeMean <= 0 || r.KernelDepthTimeMean > float64(depth) || r.KernelDepthSpanNS <= 0 {
				t.Errorf("%s depth %d: in the kernel %.2f at submission (slots %.2f), %.2f over %d ns", name, depth,
					r.KernelDepthMean, r.DepthMean, r.KernelDepthTimeMean, r.KernelDepthSpanNS)
			}
		}
	}
}
