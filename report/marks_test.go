package report

import (
	"strings"
	"testing"

	"ioswarm/result"
)

// The "!" legend names what each marked phase's warnings are about, and
// a read that may be a cache figure is never put down to skew alone.
func TestMarkLegendNamesCacheAndSkew(t *testing.T) {
	threads := []result.Thread{{StartNS: 0}, {StartNS: 5_000_000}}
	skewed := result.Phase{Name: "write", Iteration: 1, WindowNS: 100_000_000, StartSkewNS: 5_000_000, Threads: threads, Warnings: []string{"skew"}}
	cached := result.Phase{Name: "reread", Iteration: 1, WindowNS: 100_000_000, StartSkewNS: 5_000_000, Threads: threads,
		Warnings: []string{"skew", "cache"}, CacheVerdict: result.VerdictMaybeCache,
		CacheVerdicts: []result.NodeVerdict{{Host: "a", Verdict: result.VerdictMaybeCache, Reason: "client-cache"},
			{Host: "b", Verdict: result.VerdictMaybeCache, Reason: "client-cache"}, {Host: "c", Verdict: result.VerdictStorage, Reason: "untouched"}}}
	guarded := result.Phase{Name: "read", Iteration: 2, Warnings: []string{"guard"}, CacheGuard: &result.CacheGuard{Warned: true}}
	quiet := result.Phase{Name: "read", Iteration: 1, CacheVerdict: result.VerdictStorage}
	var b strings.Builder
	writeMarkLegend(&b, []result.Phase{skewed, cached, guarded, quiet})
	got := b.String()
	for _, want := range []string{
		"write 1: skewed starts\n",
		"reread 1: may be a cache figure (client-cache); and skewed starts\n",
		"read 2: may be a cache figure\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("legend lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "  read 1:") {
		t.Errorf("a phase without warnings is in the legend:\n%s", got)
	}
	if CacheMark([]result.Phase{quiet, skewed}, "") != "" || CacheMark([]result.Phase{quiet, cached}, "reread") != cacheMark ||
		CacheMark([]result.Phase{cached}, "read") != "" {
		t.Error("CacheMark marks the wrong phases")
	}
}

// The header's reads line lists the rotations only when a further read
// moved on from the first one.
func TestFurtherReadsLine(t *testing.T) {
	one, two, three := 1, 2, 3
	phases := []result.Phase{{Name: "write"}, {Name: "read", ReadShift: &one}, {Name: "reread", ReadShift: &two}, {Name: "randread", ReadShift: &three}}
	if got := furtherReads(phases, 1); !strings.Contains(got, "1, 2, 3 node(s) along") {
		t.Errorf("moved reads: %q", got)
	}
	if got := furtherReads([]result.Phase{{Name: "read", ReadShift: &one}, {Name: "reread", ReadShift: &one}}, 1); got != "" {
		t.Errorf("reads that stayed: %q", got)
	}
	if got := furtherReads([]result.Phase{{Name: "read"}}, 0); got != "" {
		t.Errorf("a file from before read_shift per phase: %q", got)
	}
}
