package main

import (
	"errors"
	"fmt"

	"ioswarm/internal/usage"
	"ioswarm/study"
)

// compareSections compares two files of which one at least is a study:
// section by section (a sweep against each section it shares a phase
// with), each with its table and its chart, A-vs-B-SECTION.
func compareSections(o compareOptions, a, b []*study.Sweep, spec chartSpec) error {
	pairs := sectionPairs(a, b)
	shown := 0
	for _, p := range pairs {
		name := p[0].Section
		if name == "" {
			name = p[1].Section
		}
		fmt.Fprintf(o.stdout, "\n[%s]\n", name)
		write := study.WriteCompactCompare
		if o.FullTable {
			write = study.WriteCompare
		}
		if err := write(o.stdout, p[0], p[1]); err != nil {
			if errors.Is(err, study.ErrNothingInCommon) {
				fmt.Fprintf(o.stdout, "nothing in common: %v\n", err)
				continue
			}
			return err
		}
		shown++
		if o.NoChart {
			continue
		}
		if err := drawChart(o.stdout, compareChartBase(o)+"-"+name, []*study.Sweep{p[0], p[1]}, spec); err != nil {
			return err
		}
	}
	if shown == 0 {
		return usage.Errorf("compare: %s and %s have no section with a point in common", o.args[0], o.args[1])
	}
	return nil
}
