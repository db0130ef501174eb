package main

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
	"ioswarm/study"
)

// compareOptions are compare's flags and arguments.
type compareOptions struct {
	chartOptions
	invocation
	NoChart bool
	// FullTable is --details: today's wide table, not the compact one.
	FullTable bool
}

func compareCommand() *cli.Command {
	var o compareOptions
	return command(&cli.Command{
		Name:      "compare",
		Usage:     "compare two systems point by point: the change in percent, and both on one chart",
		ArgsUsage: "A.json B.json",
		Description: "Points are matched by phase and thread count; the change is B relative to A\n" +
			"(+24.0% means B delivered 1.24 × A). Systems are named by their --label, else by file name.\n" +
			"The chart goes next to A as A-vs-B.svg and .png, or where --chart says.",
		Flags: append(chartFlags(&o.chartOptions),
			&cli.BoolFlag{Name: "no-chart", Destination: &o.NoChart, Category: catOutput, Usage: "print the table only"},
			tableDetailsFlag(&o.FullTable)),
	}, compareExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		return runCompare(o)
	})
}

const compareExamples = `   ioswarm compare lustre.json gpfs.json            # table, and lustre-vs-gpfs.svg/.png
   ioswarm compare old.json new.json --no-chart`

// runCompare is `ioswarm compare`.
func runCompare(o compareOptions) error {
	if len(o.args) != 2 {
		return usage.Errorf("compare: name two result files (ioswarm compare A.json B.json), got %d", len(o.args))
	}
	spec, err := chartSpecFrom(o.chartOptions, o.given)
	if err != nil {
		return err
	}
	files, err := loadSections(o.args)
	if err != nil {
		return err
	}
	if isStudyFile(files[0]) || isStudyFile(files[1]) {
		return compareSections(o, files[0], files[1], spec)
	}
	ss := []*study.Sweep{files[0][0], files[1][0]}
	write := study.WriteCompactCompare
	if o.FullTable {
		write = study.WriteCompare
	}
	if err := write(o.stdout, ss[0], ss[1]); err != nil {
		if errors.Is(err, study.ErrNothingInCommon) {
			return usage.Errorf("compare: %w", err)
		}
		return err
	}
	if o.NoChart {
		return nil
	}
	return drawChart(o.stdout, compareChartBase(o), ss, spec)
}

// compareChartBase is where a comparison's chart goes: --chart, else
// next to A as A-vs-B.
func compareChartBase(o compareOptions) string {
	if o.Chart != "" {
		return o.Chart
	}
	a, b := o.args[0], o.args[1]
	return filepath.Join(filepath.Dir(a), stem(a)+"-vs-"+stem(b))
}

// stem is a file's name without directory and extension.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
