package result

import "testing"

// The cache verdict's field names (DESIGN §11) are read by scripts and by
// other tools' tests: they may be added to, never renamed.
func TestCacheVerdictFieldsAreNamed(t *testing.T) {
	shift := 2
	job := Job{Phases: []Phase{{Name: "reread", CacheVerdict: VerdictMaybeCache, CacheReason: "r", ReadShift: &shift,
		CacheVerdicts: []NodeVerdict{{Host: "h", Verdict: VerdictMaybeCache, Reason: "client-cache", Detail: "d"}}}}}
	doc := marshalled(t, job)
	phase := doc["phases"].([]any)[0].(map[string]any)
	needKeys(t, phase, "phases[0]", "cache_verdict", "cache_reason", "cache_verdicts", "read_shift")
	needKeys(t, phase["cache_verdicts"].([]any)[0].(map[string]any), "cache_verdicts[0]", "host", "rank", "verdict", "reason", "detail")
	if phase["cache_verdict"] != "maybe-cache" {
		t.Errorf("cache_verdict %v", phase["cache_verdict"])
	}
}

// MaybeCache and Skewed are what the reports mark a phase by.
func TestMaybeCacheAndSkewed(t *testing.T) {
	two := []Thread{{}, {}}
	for _, c := range []struct {
		p            Phase
		cache, skews bool
	}{
		{Phase{CacheVerdict: VerdictStorage}, false, false},
		{Phase{CacheVerdict: VerdictMaybeCache}, true, false},
		{Phase{CacheGuard: &CacheGuard{Warned: true}}, true, false},
		{Phase{WindowNS: 100e6, StartSkewNS: 2e6, Threads: two}, false, true},
		{Phase{WindowNS: 100e6, StartSkewNS: 0.5e6, Threads: two}, false, false}, // under a millisecond
		{Phase{WindowNS: 1e9, StartSkewNS: 5e6, Threads: two}, false, false},     // under 1% of the window
	} {
		if c.p.MaybeCache() != c.cache || c.p.Skewed() != c.skews {
			t.Errorf("%+v: cache %v skewed %v, want %v %v", c.p, c.p.MaybeCache(), c.p.Skewed(), c.cache, c.skews)
		}
	}
}
