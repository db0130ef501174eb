package study

import (
	"fmt"
	"sort"
)

// Merge joins studies that carry the same label into one, so single runs
// made separately (one Slurm job per thread count, say) draw as one line.
// Unlabelled studies stay apart: nothing says they are the same system.
// The same thread count twice under one label is an error naming both
// files, since either could be the one meant.
func Merge(ss []*Sweep) ([]*Sweep, error) {
	var out []*Sweep
	byLabel := map[string]*Sweep{}
	sources := map[*Sweep]map[int]string{} // merged study → threads → file
	for _, s := range ss {
		m := byLabel[s.Label]
		if m == nil {
			c := *s
			c.Points = nil
			c.Threads = nil
			m = &c
			out = append(out, m)
			sources[m] = map[int]string{}
			if s.Label != "" {
				byLabel[s.Label] = m
			}
		}
		for _, p := range s.Points {
			n := p.Config.Threads
			if prev, dup := sources[m][n]; dup {
				return nil, fmt.Errorf("label %q: %d threads in both %s and %s", s.Label, n, prev, s.Source)
			}
			sources[m][n] = s.Source
			m.Points = append(m.Points, p)
			m.Threads = append(m.Threads, n)
		}
		m.Complete = m.Complete && s.Complete
	}
	for _, m := range out {
		sort.SliceStable(m.Points, func(i, j int) bool { return m.Points[i].Config.Threads < m.Points[j].Config.Threads })
		sort.Ints(m.Threads)
	}
	return out, nil
}
