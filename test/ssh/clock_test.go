package ssh

import (
	"path/filepath"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/internal/loadslack"
	"ioswarm/result"
	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// skewSeconds is how far node2's monotonic clock runs ahead: three hours,
// as two machines booted at different times would differ.
const skewSeconds = 10800

// Node2's CLOCK_MONOTONIC runs three hours ahead (a time namespace). The
// result must report that offset within its own error bound, and every
// figure must come out as on a cluster whose clocks agree: a record left
// unconverted would stretch a phase's window to three hours and cut its
// bandwidth ten-thousandfold.
func TestClockOffsetNode(t *testing.T) {
	skewed := newEnvWith(t, 4, cluster.Options{ClockOffset: map[int]int{2: skewSeconds}})
	job := skewed.clockRun(t)
	for _, h := range job.Hosts {
		want := int64(0)
		if h.Host == "node2" {
			want = skewSeconds * int64(time.Second)
			t.Logf("node2: clock offset %d ns ± %d ns", h.ClockOffsetNS, h.ClockErrorNS)
		}
		// The true offset is known exactly here, so the estimate must
		// lie within its bound; 1 ms of slack for the clock readings.
		if d := abs(h.ClockOffsetNS - want); d > h.ClockErrorNS+int64(time.Millisecond) {
			t.Errorf("%s: clock offset %d ns, want %d ns within %d ns (+1 ms); off by %d ns",
				h.Host, h.ClockOffsetNS, want, h.ClockErrorNS, d)
		}
		// 5 ms idle; a loaded machine answers the probes later.
		if bound := loadslack.Bound(5 * time.Millisecond); h.ClockErrorNS <= 0 || h.ClockErrorNS > int64(bound) {
			t.Errorf("%s: clock error bound %d ns, want (0, %v]", h.Host, h.ClockErrorNS, bound)
		}
	}
	for _, p := range job.Phases {
		if p.StartSkewNS < 0 || p.StartSkewNS > int64(time.Second) || p.WindowNS <= 0 || p.WindowNS > int64(time.Minute) {
			t.Errorf("phase %s #%d: start skew %v, window %v; want under 1 s and 1 min",
				p.Name, p.Iteration, time.Duration(p.StartSkewNS), time.Duration(p.WindowNS))
		}
		// Each rank's ready moment comes through its clock offset like
		// its records: left on node2's clock, the margin would be three
		// hours off. The moment is after the run request in truth, so
		// the margin exceeds the lead by clock error at most.
		slack := int64(loadslack.Bound(5 * time.Millisecond)) // a clock error, as above
		if p.ReleaseLeadNS <= 0 || p.ReleaseMarginNS > p.ReleaseLeadNS+slack || p.ReleaseMarginNS < -int64(time.Second) {
			t.Errorf("phase %s #%d: %v of a %v release lead left when the last threads were ready",
				p.Name, p.Iteration, time.Duration(p.ReleaseMarginNS), time.Duration(p.ReleaseLeadNS))
		}
	}
	skewed.c.Stop() // one cluster at a time on a small machine

	aligned := newEnvWith(t, 4, cluster.Options{}).clockRun(t)
	a, b := meanBandwidth(job), meanBandwidth(aligned)
	for name, bw := range b {
		// Wide on purpose: the two runs are minutes apart on a shared
		// machine whose disk other work may hold for one of them (a
		// factor of 2 seen with none), and the failure this guards
		// against is a factor of ten thousand.
		if r := a[name] / bw; !(r >= 0.01 && r <= 100) {
			t.Errorf("phase %s: %.3g B/s with node2 skewed, %.3g B/s with clocks aligned (ratio %.3g)", name, a[name], bw, r)
		}
	}
	t.Logf("bandwidth with node2 skewed %v, aligned %v", a, b)
	if len(a) != 2 || len(b) != 2 {
		t.Errorf("phases measured: %v skewed, %v aligned; want write and read", a, b)
	}
}

// clockRun runs the workload the clock test compares and returns its
// checked result.
func (e *env) clockRun(t *testing.T) *result.Job {
	t.Helper()
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "8", "--dir", e.dir,
		"--total", "256MiB", "--block", "1MiB", "--iterations", "3", "--drop-caches", "off", "--output", out}, e.sshFlags()...)
	if o := e.head(t, 2*time.Minute, args...); o.Code != 0 {
		t.Fatalf("run exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	job := harness.LoadResult(t, out)
	if err := figures.Check(job); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	e.checkClean(t, 5*time.Second)
	return job
}

// meanBandwidth is each phase's bandwidth averaged over iterations.
func meanBandwidth(job *result.Job) map[string]float64 {
	sum, n := map[string]float64{}, map[string]float64{}
	for _, p := range job.Phases {
		sum[p.Name] += p.Bandwidth
		n[p.Name]++
	}
	for k := range sum {
		sum[k] /= n[k]
	}
	return sum
}
