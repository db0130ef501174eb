package coordinator

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/result"
	"ioswarm/settings"
)

const gib = int64(1) << 30

func TestAutoTotalMeetsTheRuleInWholeRecords(t *testing.T) {
	cases := []struct {
		client, server int64
		threads        int
		block, rand    int64
		want           int64
	}{
		// 2 × (24 GiB + 0) = 48 GiB, a multiple of 4 × 16 MiB already.
		{24 * gib, 0, 4, 16 << 20, 4096, 48 * gib},
		// 2 × (10 GiB + 1 GiB) = 22 GiB rounded up to 3 × 16 MiB records.
		{10 * gib, gib, 3, 16 << 20, 4096, 22*gib + 32<<20},
		// Records of 12 KiB and random blocks of 8 KiB: whole 24 KiB units.
		{1000, 0, 1, 12 << 10, 8 << 10, 24 << 10},
		// Nothing known: one unit.
		{0, 0, 2, 1 << 20, 4096, 2 << 20},
	}
	for _, c := range cases {
		got := autoTotal(c.client, c.server, c.threads, c.block, c.rand)
		if got != c.want {
			t.Errorf("autoTotal(%d, %d, %d, %d, %d) = %d, want %d", c.client, c.server, c.threads, c.block, c.rand, got, c.want)
		}
		if got < 2*(c.client+c.server) || got%(int64(c.threads)*c.block) != 0 || (got/int64(c.threads))%c.rand != 0 {
			t.Errorf("autoTotal = %d breaks the rule or the records", got)
		}
	}
}

func TestCacheGuard(t *testing.T) {
	cases := []struct {
		name          string
		cold          bool // every node's verdict: direct, untouched or drop-caches
		server, total int64
		client        int64 // counted
		warned        bool
	}{
		{"not cold, small", false, 0, gib, 24 * gib, true},
		{"not cold, big enough", false, 0, 48 * gib, 24 * gib, false},
		{"cold everywhere", true, 0, gib, 0, false},
		{"servers cache even a cold read", true, 8 * gib, gib, 0, true},
		{"servers cache, big enough", true, 8 * gib, 16 * gib, 0, false},
	}
	for _, c := range cases {
		g := cacheGuard(c.cold, 24*gib, c.server, c.total)
		if g.ClientCache != c.client || g.Warned != c.warned || g.RequiredTotal != 2*(c.client+c.server) ||
			g.Applies != (g.RequiredTotal > 0) || g.Total != c.total {
			t.Errorf("%s: %+v, want client %d warned %v", c.name, *g, c.client, c.warned)
		}
	}
	g := cacheGuard(false, 24*gib, 0, gib)
	w := guardWarning("read", g, 1, "fadvise")
	for _, want := range []string{"read:", "1.00 GiB", "24.0 GiB on 1 node(s)", "48.0 GiB", "fadvise", "--total auto"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}

func TestResidencyWarnings(t *testing.T) {
	p := &result.Phase{Name: "read", ResidentByHost: []result.HostResidency{
		{Host: "node1", ResidentFraction: 0.01}, {Host: "node2", ResidentFraction: 0.97}}}
	w := residencyWarnings(p, "auto", false, 0)
	if len(w) != 1 || !strings.Contains(w[0], "97%") || !strings.Contains(w[0], "node2") {
		t.Errorf("one hot node: %q", w)
	}
	w = residencyWarnings(p, "off", false, 0)
	if len(w) != 2 || !strings.Contains(w[0], "--drop-caches off") {
		t.Errorf("drop off, no shift: %q", w)
	}
	cold := &result.Phase{Name: "randread", ResidentByHost: []result.HostResidency{{Host: "a", ResidentFraction: 0.05}}}
	if w := residencyWarnings(cold, "off", false, 1); len(w) != 0 {
		t.Errorf("rotated, 5%% resident: %q, want silence", w)
	}
	if w := residencyWarnings(cold, "off", true, 0); len(w) != 0 {
		t.Errorf("direct: %q, want silence", w)
	}
	// O_DIRECT reads bypass the page cache: 97% resident on node2 is no
	// cache figure then.
	if w := residencyWarnings(p, "auto", true, 0); len(w) != 0 {
		t.Errorf("direct, one hot node: %q, want silence", w)
	}
}

func TestSizeAutoSettlesTheJobsSizes(t *testing.T) {
	var log strings.Builder
	j := jobOn("node1", "node2", "node3")
	j.o = Workload{Job: settings.Job{Threads: 3, Block: 16 << 20, RandBlock: 4096, TotalAuto: true, ServerCache: gib}}
	j.s.o.Log = launcher.NewLineWriter(&log)
	j.res = &result.Job{}
	j.clientCache, j.kernels = 10*gib, 3
	if err := j.sizeAuto(); err != nil {
		t.Fatal(err)
	}
	want := int64(22*gib + 32<<20)
	if j.o.Total != want || j.o.FileSize != want/3 || j.res.Config.Total != want || j.res.Config.FileSize != want/3 {
		t.Errorf("total %d file %d (result %d, %d), want %d and %d", j.o.Total, j.o.FileSize,
			j.res.Config.Total, j.res.Config.FileSize, want, want/3)
	}
	if !strings.Contains(log.String(), "--total auto: 22.0 GiB") {
		t.Errorf("log %q", log.String())
	}
}

// --rand-time bounds random phases only, and only where it is shorter
// than --stonewall.
func TestRandTimeBoundsRandomPhases(t *testing.T) {
	j := &job{o: Workload{Job: settings.Job{RandTime: 2 * time.Minute}}}
	if j.stonewall("write") != 0 || j.stonewall("randread") != 2*time.Minute || j.stonewall("randwrite") != 2*time.Minute {
		t.Errorf("rand-time 2m: write %v randread %v", j.stonewall("write"), j.stonewall("randread"))
	}
	j.o.Stonewall = time.Minute
	if j.stonewall("randread") != time.Minute || j.stonewall("read") != time.Minute {
		t.Errorf("stonewall 1m under rand-time 2m: %v", j.stonewall("randread"))
	}
	j.o.Stonewall, j.o.RandTime = 5*time.Minute, 0
	if j.stonewall("randread") != 5*time.Minute {
		t.Errorf("rand-time 0: %v", j.stonewall("randread"))
	}
}

func TestSeriesStep(t *testing.T) {
	for window, want := range map[int64]int64{
		1e5:    1e6,  // a tenth of a millisecond: the 1 ms minimum
		400e6:  1e6,  // 400 ms in 400 intervals
		1e9:    2e6,  // 1 s: 2 ms, 500 intervals
		3e9:    1e7,  // 3 s: 6 ms rounds up to 10 ms
		3600e9: 1e10, // an hour: 7.2 s rounds up to 10 s
	} {
		got := seriesStep(window, 1<<40)
		if got != want || (window+got-1)/got > maxIntervals {
			t.Errorf("seriesStep(%d) = %d, want %d (at most %d intervals)", window, got, want, maxIntervals)
		}
	}
	// 32 records in 800 ms: about 8 completions an interval, 200 ms.
	if got := seriesStep(800e6, 32); got != 2e8 {
		t.Errorf("seriesStep(800ms, 32 ops) = %d, want 200ms", got)
	}
}

func TestSkewWarning(t *testing.T) {
	p := &result.Phase{Name: "write", WindowNS: 100e6, StartSkewNS: 3e6, ReleaseSkewNS: 200e3, Threads: []result.Thread{
		{Thread: 0, Host: "node1", StartNS: 1e9}, {Thread: 1, Host: "node3", StartNS: 1e9 + 3e6}}}
	w := skewWarning(p, 12e3)
	for _, want := range []string{"write: threads began over 3ms", "3.0% of the 100ms window", "thread 1, on node3",
		"not clock error (clocks known to ±12µs;", "first threads woke for the release within 200µs of each other"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	p.StartSkewNS = 0.9e6 // under 1%: silent
	if w := skewWarning(p, 12e3); w != "" {
		t.Errorf("0.9%% skew warned: %q", w)
	}
	p.WindowNS, p.StartSkewNS = 10e6, 0.5e6 // 5% but half a millisecond: silent
	if w := skewWarning(p, 12e3); w != "" {
		t.Errorf("a 0.5 ms skew warned: %q", w)
	}
}

// A hard open-files limit too low for the ranks is a usage error naming
// the limit and the need; one that suffices passes. (The test lowers its
// own soft and hard limits in a child process: a hard limit, once
// lowered, cannot be raised again without privileges.)
func TestFileLimit(t *testing.T) {
	if os.Getenv("IOSWARM_FDLIMIT_CHILD") == "1" {
		lim := unix.Rlimit{Cur: 200, Max: 200}
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		if err := checkFileLimit(10); err != nil {
			t.Fatalf("10 ranks under 200 fds: %v", err)
		}
		err := checkFileLimit(200)
		if err == nil || !usage.Is(err) || !strings.Contains(err.Error(), "limit is 200") || !strings.Contains(err.Error(), "need about 864") {
			t.Fatalf("200 ranks under 200 fds: %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "IOSWARM_FDLIMIT_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("child: %v\n%s", err, out)
	}
}
