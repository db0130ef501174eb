package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"ioswarm/chart"
	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/progress"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/study"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "run the phases at each thread count on one set of ranks; table, JSON, CSV and chart",
		Description: "Ranks start once; each point then runs every phase with its thread count.\n" +
			"--total stays fixed and is divided among each point's threads (the usual scaling study);\n" +
			"--file-size instead keeps each thread's file fixed, so the aggregate grows with the threads.\n" +
			"Every point is checked before anything starts. The chart (SVG and PNG) goes next to --output\n" +
			"with the same base name, or where --chart says.",
		Flags:  append(append(append(sweepIOFlags(), reportFlags()...), launchFlags()...), chartFlags()...),
		Action: sweepAction,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage.Wrap(err)
		},
	}
}

// sweepIOFlags are run's I/O flags with --threads taking a list and the
// size flags saying what a sweep holds fixed.
func sweepIOFlags() []cli.Flag {
	flags := ioFlags()
	for i, f := range flags {
		switch f.Names()[0] {
		case "threads":
			flags[i] = &cli.StringFlag{Name: "threads", Value: "1..16",
				Usage: "thread counts: A..B is every power of two from A to B (1..512), or a list such as 1,2,4,6"}
		case "total":
			flags[i] = &cli.StringFlag{Name: "total",
				Usage: "aggregate size, the same at every point and divided among its threads (default 1GiB unless --file-size)"}
		case "iodepth":
			flags[i] = &cli.StringFlag{Name: "iodepth", Value: "1",
				Usage: "queue depths per thread with --engine io_uring, a list like --threads (1,4,16,64 or 1..64): every thread count runs at every depth"}
		case "file-size":
			flags[i] = &cli.StringFlag{Name: "file-size",
				Usage: "size of each thread's file, the same at every point (instead of --total: the aggregate grows with the threads)"}
		}
	}
	return flags
}

func sweepAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usage.Errorf("sweep: unexpected argument %q (flags start with --)", c.Args().First())
	}
	threads, err := study.ParseThreads(c.String("threads"))
	if err != nil {
		return flagError("threads", c.String("threads"), err)
	}
	format := c.String("format")
	if format != "table" && format != "json" && format != "csv" {
		return usage.Errorf("--format %q: must be table, json or csv", format)
	}
	size, err := chartSizeFrom(c)
	if err != nil {
		return err
	}
	l, o, err := optionsFrom(c)
	if err != nil {
		return err
	}
	if o.TotalAuto {
		// Each point would size itself from its own nodes' memory, and
		// a sweep's aggregate must stay the same at every point.
		return usage.Errorf("--total auto: not for sweeps, whose aggregate must be fixed; `ioswarm run --total auto` on the largest point's hosts prints the size to give")
	}
	if path := c.String("csv"); path != "" {
		if err := study.CheckCSV(path); err != nil {
			return usage.Wrap(err)
		}
	}
	depths, err := study.ParseThreads(c.String("iodepth"))
	if err != nil {
		return flagError("iodepth", c.String("iodepth"), err)
	}
	o.IODepth = depths[0]
	plan := study.Plan{Base: o, Launch: l, Threads: threads}
	if len(depths) > 1 {
		plan.Depths = depths
	}
	out := newSweepPrinter(os.Stdout, format, plan.NewSweep(), c.String("csv"), o.Progress)
	plan.Before, plan.After = out.before, out.after
	sw, runErr := study.Run(c.Context, plan)
	if sw == nil {
		return runErr
	}
	if err := saveSweep(c, sw, size); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if format == "json" {
		return study.WriteJSON(os.Stdout, sw)
	}
	return nil
}

// saveSweep writes the JSON file and the chart; both are wanted also
// from a sweep that stopped early, for the points it measured.
func saveSweep(c *cli.Context, sw *study.Sweep, size chart.Size) error {
	out := c.String("output")
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		if err := study.WriteJSON(f, sw); err != nil {
			f.Close()
			return fmt.Errorf("--output %s: %w", out, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("--output %s: %w", out, err)
		}
	}
	base := c.String("chart")
	if base == "" {
		base = out
	}
	if base == "" || !anyComplete(sw) {
		return nil
	}
	return drawChart(os.Stderr, base, []*study.Sweep{sw}, size)
}

func anyComplete(sw *study.Sweep) bool {
	for _, p := range sw.Points {
		if p.Complete {
			return true
		}
	}
	return false
}

// sweepPrinter prints each point as it completes and appends it to the
// CSV file, so an interrupted sweep keeps what it measured.
type sweepPrinter struct {
	w        io.Writer
	format   string
	sw       *study.Sweep
	table    *study.Table
	csvPath  string
	rows     int
	progress coordinator.Progress
}

func newSweepPrinter(w io.Writer, format string, sw *study.Sweep, csvPath string, p coordinator.Progress) *sweepPrinter {
	return &sweepPrinter{w: w, format: format, sw: sw, csvPath: csvPath, progress: p}
}

// before names the point on the progress line; the table's header waits
// for the first point so that a launch failure prints no empty table.
func (s *sweepPrinter) before(o coordinator.Workload) {
	if r, ok := s.progress.(*progress.Reporter); ok {
		unit := "threads"
		if o.Threads == 1 {
			unit = "thread"
		}
		depth := ""
		if len(s.sw.IODepths) > 1 {
			depth = fmt.Sprintf(" qd%d", o.IODepth)
		}
		r.SetPrefix(fmt.Sprintf("[%d %s%s]", o.Threads, unit, depth))
	}
	if s.format == "table" && s.table == nil {
		s.table = study.NewTable(s.w, s.sw)
	}
}

func (s *sweepPrinter) after(job *result.Job) error {
	switch s.format {
	case "table":
		s.table.Row(job)
		if err := s.table.Err(); err != nil {
			return err
		}
	case "csv":
		if err := report.WriteCSV(s.w, job, s.rows == 0); err != nil {
			return err
		}
	}
	s.rows++
	if s.csvPath != "" {
		return study.AppendCSV(s.csvPath, job)
	}
	return nil
}
