package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/chart"
	"ioswarm/internal/usage"
	"ioswarm/report"
	"ioswarm/study"
)

func chartSizeFrom(v string) (chart.Size, error) {
	s, err := chart.ParseSize(v)
	if err != nil {
		return s, flagError("chart-size", v, err)
	}
	return s, nil
}

// drawChart writes the chart files and says where they went.
func drawChart(w io.Writer, base string, ss []*study.Sweep, spec chartSpec) error {
	svg, png, err := chart.Write(base, ss, spec.size, spec.labels)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	fmt.Fprintf(w, "chart: %s, %s\n", svg, png)
	return nil
}

// plotOptions are plot's flags and arguments.
type plotOptions struct {
	chartOptions
	invocation
	Timeline, ByNode bool
}

func plotCommand() *cli.Command {
	var o plotOptions
	return command(&cli.Command{
		Name:      "plot",
		Usage:     "re-draw the chart from saved result files (sweeps or single runs)",
		ArgsUsage: "FILE.json...",
		Description: "Each file is a line per phase; files given the same --label at run time are joined\n" +
			"into one line (single runs at different thread counts, for instance). The chart goes next\n" +
			"to the first file with the same base name, or where --chart says.\n" +
			"--timeline draws one run's phases over time instead (FILE-timeline.svg and .png).",
		Flags: append(chartFlags(&o.chartOptions),
			&cli.BoolFlag{Name: "timeline", Destination: &o.Timeline, Category: catOutput, Usage: "draw a single run's GB/s (and IOPS) over time, from the series in its result file"},
			&cli.BoolFlag{Name: "by-node", Destination: &o.ByNode, Category: catOutput, Usage: "with --timeline: a line per node"}),
	}, plotExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		return runPlot(o)
	})
}

const plotExamples = `   ioswarm plot lustre.json                         # lustre.svg and lustre.png
   ioswarm plot run-*.json --chart scaling          # single runs with one --label, joined into lines
   ioswarm plot run.json --timeline --by-node
   ioswarm plot gpfs.json --title "Figure 15: Sequential N to N performance" --chart-phases write,read`

// runPlot is `ioswarm plot`.
func runPlot(o plotOptions) error {
	if len(o.args) == 0 {
		return usage.Errorf("plot: name at least one result file (ioswarm plot results.json)")
	}
	spec, err := chartSpecFrom(o.chartOptions, o.given)
	if err != nil {
		return err
	}
	if o.Timeline {
		return plotTimeline(o, spec)
	}
	if o.ByNode {
		return usage.Errorf("plot: --by-node goes with --timeline")
	}
	ss, err := loadStudies(o.args)
	if err != nil {
		return err
	}
	ss, err = study.Merge(ss)
	if err != nil {
		return usage.Wrap(err)
	}
	base := o.Chart
	if base == "" {
		base = o.args[0]
	}
	return drawChart(o.stdout, base, ss, spec)
}

// plotTimeline draws one run over time.
func plotTimeline(o plotOptions, spec chartSpec) error {
	if len(o.args) != 1 {
		return usage.Errorf("plot --timeline: name one result file of a single run")
	}
	path := o.args[0]
	f, err := os.Open(path)
	if err != nil {
		return usage.Wrap(err)
	}
	job, err := report.LoadJob(f, path)
	f.Close()
	if err != nil {
		return usage.Wrap(err)
	}
	base := o.Chart
	if base == "" {
		base = strings.TrimSuffix(path, filepath.Ext(path)) + "-timeline"
	}
	svg, png, err := chart.WriteTimeline(base, job, o.ByNode, spec.size, spec.labels)
	if err != nil {
		return fmt.Errorf("plot --timeline %s: %w", path, err)
	}
	fmt.Fprintf(o.stdout, "chart: %s, %s\n", svg, png)
	return nil
}

// loadStudies reads result files, a study's as its sections; a file
// that cannot be read is the user's to fix, like a bad flag.
func loadStudies(paths []string) ([]*study.Sweep, error) {
	files, err := loadSections(paths)
	if err != nil {
		return nil, err
	}
	var out []*study.Sweep
	for _, secs := range files {
		// A study's file draws as one line per section.
		out = append(out, secs...)
	}
	return out, nil
}
