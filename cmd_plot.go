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

// chartFlags place and size the chart; shared by sweep, plot and compare.
func chartFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "chart", Usage: "write the chart to PATH.svg and PATH.png (default: next to the results, same base name)"},
		&cli.StringFlag{Name: "chart-size", Value: fmt.Sprintf("%dx%d", chart.DefaultWidth, chart.DefaultHeight), Usage: "chart size in pixels, WIDTHxHEIGHT"},
	}
}

func chartSizeFrom(c *cli.Context) (chart.Size, error) {
	s, err := chart.ParseSize(c.String("chart-size"))
	if err != nil {
		return s, flagError("chart-size", c.String("chart-size"), err)
	}
	return s, nil
}

// drawChart writes the chart files and says where they went.
func drawChart(w io.Writer, base string, ss []*study.Sweep, size chart.Size) error {
	svg, png, err := chart.Write(base, ss, size)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	fmt.Fprintf(w, "chart: %s, %s\n", svg, png)
	return nil
}

func plotCommand() *cli.Command {
	return &cli.Command{
		Name:      "plot",
		Usage:     "re-draw the chart from saved result files (sweeps or single runs)",
		ArgsUsage: "FILE.json...",
		Description: "Each file is a line per phase; files given the same --label at run time are joined\n" +
			"into one line (single runs at different thread counts, for instance). The chart goes next\n" +
			"to the first file with the same base name, or where --chart says.\n" +
			"--timeline draws one run's phases over time instead (FILE-timeline.svg and .png).",
		Flags: append(chartFlags(),
			&cli.BoolFlag{Name: "timeline", Usage: "draw a single run's GB/s (and IOPS) over time, from the series in its result file"},
			&cli.BoolFlag{Name: "by-node", Usage: "with --timeline: a line per node"}),
		Action: plotAction,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage.Wrap(err)
		},
	}
}

func plotAction(c *cli.Context) error {
	if c.Args().Len() == 0 {
		return usage.Errorf("plot: name at least one result file (ioswarm plot results.json)")
	}
	size, err := chartSizeFrom(c)
	if err != nil {
		return err
	}
	if c.Bool("timeline") {
		return plotTimeline(c, size)
	}
	if c.Bool("by-node") {
		return usage.Errorf("plot: --by-node goes with --timeline")
	}
	ss, err := loadStudies(c.Args().Slice())
	if err != nil {
		return err
	}
	ss, err = study.Merge(ss)
	if err != nil {
		return usage.Wrap(err)
	}
	base := c.String("chart")
	if base == "" {
		base = c.Args().First()
	}
	return drawChart(os.Stdout, base, ss, size)
}

// plotTimeline draws one run over time.
func plotTimeline(c *cli.Context, size chart.Size) error {
	if c.Args().Len() != 1 {
		return usage.Errorf("plot --timeline: name one result file of a single run")
	}
	path := c.Args().First()
	f, err := os.Open(path)
	if err != nil {
		return usage.Wrap(err)
	}
	job, err := report.LoadJob(f, path)
	f.Close()
	if err != nil {
		return usage.Wrap(err)
	}
	base := c.String("chart")
	if base == "" {
		base = strings.TrimSuffix(path, filepath.Ext(path)) + "-timeline"
	}
	svg, png, err := chart.WriteTimeline(base, job, c.Bool("by-node"), size)
	if err != nil {
		return fmt.Errorf("plot --timeline %s: %w", path, err)
	}
	fmt.Printf("chart: %s, %s\n", svg, png)
	return nil
}

// loadStudies reads result files; a file that cannot be read is the
// user's to fix, like a bad flag.
func loadStudies(paths []string) ([]*study.Sweep, error) {
	var out []*study.Sweep
	for _, p := range paths {
		s, err := study.Load(p)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		out = append(out, s)
	}
	return out, nil
}
