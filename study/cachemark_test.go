package study

import (
	"regexp"
	"strings"
	"testing"

	"ioswarm/report"
	"ioswarm/result"
)

// A figure whose cache verdict is maybe-cache is marked in sweep and
// compare cells, and the footer says what the mark means; storage
// verdicts leave the cells as they were.
func TestSweepAndCompareMarkCacheFigures(t *testing.T) {
	a := sweepOf("a", map[int][]string{1: {"write", "read"}})
	b := sweepOf("b", map[int][]string{1: {"write", "read"}})
	a.Points[0].Phases[1].CacheVerdict = result.VerdictStorage
	if out := compareText(t, a, b); strings.Contains(out, report.CacheMarkNote) || strings.Contains(out, "!") {
		t.Errorf("marked a storage figure:\n%s", out)
	}
	b.Points[0].Phases[1].CacheVerdict = result.VerdictMaybeCache
	out := compareText(t, a, b)
	if !regexp.MustCompile(`(?m)^\s*read\s+1\s+1\.000\s+1\.000!\s`).MatchString(out) || !strings.Contains(out, report.CacheMarkNote) {
		t.Errorf("compare: B's cached read is not marked and explained:\n%s", out)
	}

	var buf strings.Builder
	tab := NewTable(&buf, b)
	tab.Row(b.Points[0])
	tab.Footer(b)
	if got := buf.String(); !strings.Contains(got, "1.000!") || !strings.Contains(got, report.CacheMarkNote) {
		t.Errorf("sweep: the cached read is not marked and explained:\n%s", got)
	}
}
