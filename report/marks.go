package report

import (
	"fmt"
	"io"
	"strings"

	"ioswarm/result"
)

// writeMarkLegend says, for every phase marked "!", what its warnings
// are about: a cache (its verdict is maybe-cache, naming the nodes'
// reasons), skewed starts, or both. A read whose figure may come from a
// cache is never put down to skew alone: a cached read is short, so
// ordinary skew passes its share of the window too.
func writeMarkLegend(w io.Writer, phases []result.Phase) {
	fmt.Fprintln(w, "! a warning below concerns the phase's figure:")
	for i := range phases {
		p := &phases[i]
		if len(p.Warnings) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s %d: %s\n", Clean(p.Name), p.Iteration, markReason(p))
	}
}

// markReason names what a phase's "!" is for.
func markReason(p *result.Phase) string {
	var kinds []string
	if p.MaybeCache() {
		c := "may be a cache figure"
		if r := p.CacheReasons(); len(r) > 0 {
			c += " (" + strings.Join(r, ", ") + ")"
		}
		kinds = append(kinds, c)
	}
	if p.Skewed() {
		kinds = append(kinds, "skewed starts")
	}
	if len(kinds) == 0 {
		return "see the warnings"
	}
	return strings.Join(kinds, "; and ")
}

// cacheMark is the mark a sweep or compare cell gets when its figure may
// come from a cache.
const cacheMark = "!"

// CacheMark returns the mark for a figure of phases named name (any
// phase for "") that may come from a cache, else "".
func CacheMark(phases []result.Phase, name string) string {
	for i := range phases {
		if (name == "" || phases[i].Name == name) && phases[i].MaybeCache() {
			return cacheMark
		}
	}
	return ""
}

// CacheMarkNote explains the mark under a sweep or compare table.
const CacheMarkNote = "! the read may come from a cache, not storage (cache verdict maybe-cache): see the point's cache_verdicts"

// furtherReads says where the read phases after the first moved, when
// any read another rotation than first: each further read of the same
// files goes to nodes that have not touched them.
func furtherReads(phases []result.Phase, first int) string {
	var shifts []string
	moved := false
	for i := range phases {
		if p := &phases[i]; p.ReadShift != nil {
			shifts = append(shifts, fmt.Sprint(*p.ReadShift))
			moved = moved || *p.ReadShift != first
		}
	}
	if !moved || len(shifts) < 2 {
		return ""
	}
	return "; the read phases in turn " + strings.Join(shifts, ", ") + " node(s) along, each to nodes that had not touched the files"
}
