package local

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The depth the kernel held reaches the result and the table: every
// thread's submissions counted (one per operation, plus any retry), the
// first fill reaching the depth asked, the figures within it, the
// phase's time mean that of its threads weighted by their spans, and the
// table's depth cell that figure.
func TestIOuringKernelDepthReachesTheResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := run(t, "run", "--dir", dir, "--threads", "2", "--local-ranks", "2", "--total", "16MiB",
		"--block", "1MiB", "--phases", "write,randread", "--direct", "--engine", "io_uring", "--iodepth", "8",
		"--progress", "off", "--output", out)
	if code != 0 {
		if strings.Contains(stderr, "io_uring unavailable") {
			t.Skipf("io_uring unavailable here: %s", stderr)
		}
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	job := loadResult(t, out)
	for _, p := range job.Phases {
		var samples, span int64
		var area float64
		for _, th := range p.Threads {
			if th.IODepthKernelSamples < th.Ops || th.IODepthKernelAtSubmitMax != 8 || th.IODepthKernelSpanNS <= 0 ||
				th.IODepthKernelTimeMean <= 0 || th.IODepthKernelTimeMean > 8 || th.IODepthKernelAtSubmitMean < 1 {
				t.Errorf("%s thread %d: %d submissions for %d ops, at submission mean %.2f max %d, over time %.2f across %d ns",
					p.Name, th.Thread, th.IODepthKernelSamples, th.Ops, th.IODepthKernelAtSubmitMean, th.IODepthKernelAtSubmitMax,
					th.IODepthKernelTimeMean, th.IODepthKernelSpanNS)
			}
			samples += th.IODepthKernelSamples
			span += th.IODepthKernelSpanNS
			area += th.IODepthKernelTimeMean * float64(th.IODepthKernelSpanNS)
		}
		if want := area / float64(span); samples == 0 || p.IODepthKernelAtSubmitMax != 8 || !agreesToPPM(p.IODepthKernelTimeMean, want) {
			t.Errorf("%s: over time %.4f, its threads' %.4f; largest at submission %d", p.Name, p.IODepthKernelTimeMean, want, p.IODepthKernelAtSubmitMax)
		}
		if cell := fmt.Sprintf("%.1f/8", p.IODepthKernelTimeMean); !strings.Contains(stdout, cell) {
			t.Errorf("%s: the table lacks the kernel's depth %q:\n%s", p.Name, cell, stdout)
		}
	}
}

// agreesToPPM says whether a and b agree to a part in a million (a figure and
// its recomputation from the file's rounded numbers).
func agreesToPPM(a, b float64) bool {
	d := a - b
	return d < 1e-6*b && -d < 1e-6*b
}
