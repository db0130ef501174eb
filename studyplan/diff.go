package studyplan

import (
	"fmt"
	"slices"
	"strings"
)

// Diff names what differs between two plans in canonical form (a saved
// study's and a rerun's): sections added, dropped or moved, and every
// key whose value changed, as "seq.total: saved 8TiB, now 4TiB". None
// means the same plan.
func Diff(saved, now string) []string {
	a, errA := Parse(strings.NewReader(saved), "saved plan")
	b, errB := Parse(strings.NewReader(now), "plan")
	if errA != nil || errB != nil {
		if saved != now {
			return []string{"plan text differs"}
		}
		return nil
	}
	var out []string
	names := func(p *Plan) []string {
		var ns []string
		for _, s := range p.Sections {
			ns = append(ns, s.Name)
		}
		return ns
	}
	if an, bn := names(a), names(b); !slices.Equal(an, bn) {
		out = append(out, fmt.Sprintf("sections: saved %s, now %s", strings.Join(an, ","), strings.Join(bn, ",")))
	}
	out = append(out, entryDiff(a.Shared, b.Shared)...)
	for _, s := range a.Sections {
		if t := b.Section(s.Name); t != nil {
			out = append(out, entryDiff(s, *t)...)
		}
	}
	return out
}

// entryDiff names the keys of one section that differ.
func entryDiff(a, b Section) []string {
	var keys []string
	for _, e := range append(slices.Clone(a.Entries), b.Entries...) {
		if !slices.Contains(keys, e.Key) {
			keys = append(keys, e.Key)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		x, okA := a.Get(k)
		y, okB := b.Get(k)
		if okA == okB && x.Value == y.Value {
			continue
		}
		out = append(out, fmt.Sprintf("%s.%s: saved %s, now %s", a.Name, k, valueText(x, okA), valueText(y, okB)))
	}
	return out
}

func valueText(e Entry, ok bool) string {
	if !ok {
		return "(not set)"
	}
	return e.Value
}
