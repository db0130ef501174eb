package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"ioswarm/internal/usage"
	"ioswarm/result"
	"ioswarm/study"
)

// Resumed is what a sweep starts from when it continues a saved one.
type Resumed struct {
	Saved   *study.Sweep
	Version string   // this binary's version
	Hosts   []string // the nodes this run will use; nil when not known before the launch
	// Anyway runs on although the binary's version or the nodes differ
	// from the saved study's (the plan itself must still match).
	Anyway bool
}

// Resume checks that the saved study is this plan's, run by this binary
// on these nodes, and returns its complete points in the plan's order:
// the points to keep. A point that was in flight when the study stopped
// (incomplete) is dropped and runs again. What differs is named; a
// different plan is always refused, a different version or node set
// unless Anyway.
func Resume(p Plan, r Resumed) ([]*result.Job, error) {
	s := r.Saved
	if s.Kind != study.Kind {
		return nil, usage.Errorf("--resume %s: not a sweep's result file (kind %q)", s.Source, s.Kind)
	}
	want := p.NewSweep()
	var diffs []string
	diffs = append(diffs, setupDiff(s.Setup, want.Setup)...)
	if !slices.Equal(s.Threads, want.Threads) {
		diffs = append(diffs, fmt.Sprintf("threads: saved %s, now %s", study.FormatThreads(s.Threads), study.FormatThreads(want.Threads)))
	}
	if !slices.Equal(s.IODepths, want.IODepths) {
		diffs = append(diffs, fmt.Sprintf("iodepths: saved %v, now %v", s.IODepths, want.IODepths))
	}
	if s.Label != want.Label {
		diffs = append(diffs, fmt.Sprintf("label: saved %q, now %q", s.Label, want.Label))
	}
	if len(diffs) > 0 {
		return nil, usage.Errorf("--resume %s: the study was another plan: %s", s.Source, strings.Join(diffs, "; "))
	}
	var others []string
	if s.Version != r.Version {
		others = append(others, fmt.Sprintf("ioswarm version: saved %s, now %s", s.Version, r.Version))
	}
	if saved := savedHosts(s); r.Hosts != nil && len(saved) > 0 && !sameSet(saved, r.Hosts) {
		others = append(others, fmt.Sprintf("nodes: saved %s, now %s", strings.Join(saved, ","), strings.Join(sorted(r.Hosts), ",")))
	}
	if len(others) > 0 && !r.Anyway {
		return nil, usage.Errorf("--resume %s: %s (--resume-anyway runs on: the points would then not all come from one system)",
			s.Source, strings.Join(others, "; "))
	}
	return keptPoints(p, s), nil
}

// keptPoints are the saved study's complete points that the plan asks
// for, once each, in the plan's order.
func keptPoints(p Plan, s *study.Sweep) []*result.Job {
	depths := p.Depths
	if len(depths) == 0 {
		depths = []int{0}
	}
	var out []*result.Job
	for _, n := range p.Threads {
		for _, d := range depths {
			if j := savedPoint(s.Points, n, d, len(p.Depths) > 0); j != nil {
				out = append(out, j)
			}
		}
	}
	return out
}

// savedPoint is the first complete point of jobs at that thread count
// (and depth, when byDepth), or nil.
func savedPoint(jobs []*result.Job, threads, depth int, byDepth bool) *result.Job {
	for _, j := range jobs {
		if j.Complete && j.Config.Threads == threads && (!byDepth || j.Config.IODepth == depth) {
			return j
		}
	}
	return nil
}

// done says whether a point of that thread count (and depth) is among
// the kept points.
func done(kept []*result.Job, threads, depth int, byDepth bool) bool {
	return savedPoint(kept, threads, depth, byDepth) != nil
}

// setupDiff names the fields of the two setups that differ, by their
// names in the result file.
func setupDiff(saved, now study.Setup) []string {
	a, b := asMap(saved), asMap(now)
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		x, y := fmt.Sprint(a[k]), fmt.Sprint(b[k])
		if x != y {
			out = append(out, fmt.Sprintf("%s: saved %s, now %s", k, x, y))
		}
	}
	return out
}

// asMap is a setup as its result file holds it, numbers as written
// there (a size in bytes, not 2.147483648e+09).
func asMap(v study.Setup) map[string]any {
	data, _ := json.Marshal(v)
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

func savedHosts(s *study.Sweep) []string {
	seen := map[string]bool{}
	for _, j := range s.Points {
		for _, h := range j.Hosts {
			seen[h.Host] = true
		}
	}
	var out []string
	for h := range seen {
		out = append(out, h)
	}
	return sorted(out)
}

// sameSet says whether the saved study's nodes are among now's: a sweep
// point of few threads uses only the first nodes, so the saved study may
// have seen fewer.
func sameSet(saved, now []string) bool {
	for _, h := range saved {
		if !slices.Contains(now, h) {
			return false
		}
	}
	return true
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}
