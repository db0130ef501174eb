package report

import (
	"strings"
	"testing"

	"ioswarm/result"
)

// The table's depth is the kernel's over time where the file has it (it
// can fall short of the depth asked), the ring's count in older files.
func TestTableShowsTheKernelsDepth(t *testing.T) {
	for _, c := range []struct {
		kernel float64
		want   string
	}{{6.34, "6.3/8"}, {0, "8.0/8"}} {
		p := result.Phase{Name: "randread", IODepth: 8, IODepthAchievedMean: 8, IODepthKernelTimeMean: c.kernel, IOPS: 1000}
		var b strings.Builder
		writeCompact(&b, []result.Phase{p})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("kernel depth %.2f: compact table lacks %q:\n%s", c.kernel, c.want, b.String())
		}
		if got := throughputCells(&p)[9]; !strings.HasSuffix(got, "qd"+strings.Split(c.want, "/")[0]) {
			t.Errorf("kernel depth %.2f: IOPS cell %q, want it to end in qd%s", c.kernel, got, strings.Split(c.want, "/")[0])
		}
	}
}
