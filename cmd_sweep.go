package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"ioswarm/acceptance"
	"ioswarm/chart"
	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/progress"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/study"
	"ioswarm/sweep"
)

// sweepOptions are sweep's flags and arguments.
type sweepOptions struct {
	ioOptions
	reportOptions
	launchOptions
	chartOptions
	invocation
	Threads, IODepths string
	Expect            string
	durability
	// FullTable is --details: today's wide table, not the compact one.
	FullTable bool
	retrying
}

func (o *sweepOptions) flags() []cli.Flag {
	// run's --details names blocks of a job's table; a sweep's table
	// has columns instead, and its --details shows them all.
	return concat(sweepThreadsFlags(&o.Threads, &o.IODepths), ioFlags(&o.ioOptions, true),
		withoutFlag(reportFlags(&o.reportOptions), "details"), launchFlags(&o.launchOptions), chartFlags(&o.chartOptions),
		[]cli.Flag{expectFlag(&o.Expect), tableDetailsFlag(&o.FullTable)}, durabilityFlags(&o.durability),
		retryFlags(&o.retrying))
}

func sweepCommand() *cli.Command {
	var o sweepOptions
	return command(&cli.Command{
		Name:  "sweep",
		Usage: "run the phases at each thread count on one set of ranks; table, JSON, CSV and chart",
		Description: "Ranks start once; each point then runs every phase with its thread count.\n" +
			"--total stays fixed and is divided among each point's threads (the usual scaling study);\n" +
			"--file-size instead keeps each thread's file fixed, so the aggregate grows with the threads.\n" +
			"Every point is checked before anything starts. The chart (SVG and PNG) goes next to --output\n" +
			"with the same base name, or where --chart says.",
		Flags: o.flags(),
	}, sweepExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		o.HostsGiven = o.given["hosts"]
		return runSweep(c.Context, o)
	})
}

const sweepExamples = `   ioswarm sweep --threads 1..512 --total 1TiB --hosts nodes.txt --dir /lustre/scratch --output lustre.json
   ioswarm sweep --threads 1,2,4,8 --phases randread --engine io_uring --iodepth 1..64 --output qd.json
   ioswarm compare lustre.json gpfs.json            # two systems point by point`

// runSweep is `ioswarm sweep`.
func runSweep(ctx context.Context, o sweepOptions) error {
	expect, err := parseExpect(o.Expect)
	if err != nil {
		return err
	}
	plan, progress, err := planSweep(o)
	if err != nil {
		return err
	}
	if err := checkExpectPoints(expect, plan.Base.Phases, plan.Threads); err != nil {
		return err
	}
	if err := o.durability.apply(ctx, &plan, &o.Output, o.stderr); err != nil {
		return err
	}
	if err := o.retrying.apply(&plan, &o.launchOptions, o.stderr); err != nil {
		return err
	}
	spec, err := chartSpecFrom(o.chartOptions, o.given)
	if err != nil {
		return err
	}
	chartBase, err := checkSweepOutputs(o)
	if err != nil {
		return err
	}
	out := newSweepPrinter(o.stdout, o.Format, plan.NewSweep(), o.CSV, progress)
	out.fullTable = o.FullTable
	plan.Before, plan.After = out.before, out.after
	sw, runErr := sweep.Run(ctx, plan)
	if sw == nil {
		return runErr
	}
	if out.table != nil {
		out.table.Footer(sw)
	}
	saveErr := saveSweep(o.stderr, sw, o.Output, chartBase, spec)
	if runErr != nil {
		return errors.Join(runErr, saveErr)
	}
	return finishSweep(o, sw, saveErr, expect)
}

// checkSweepOutputs checks, before any rank starts, that every file the
// sweep will write can be written, and returns the chart's base path
// ("" for no chart).
func checkSweepOutputs(o sweepOptions) (chartBase string, err error) {
	chartBase = sweepChartBase(o.Chart, o.Output)
	svg, png := "", ""
	if chartBase != "" {
		svg, png = chart.Paths(chartBase)
	}
	return chartBase, checkOutputs(o.stderr, outputPath{"output", o.Output, true}, outputPath{"csv", o.CSV, false},
		outputPath{"chart", svg, true}, outputPath{"chart", png, true})
}

// finishSweep prints a finished sweep as JSON when asked, then judges it
// against the expectations; saveErr is the error of saving its files.
func finishSweep(o sweepOptions, sw *study.Sweep, saveErr error, expect []acceptance.Expectation) error {
	if o.Format == "json" {
		if err := study.WriteJSON(o.stdout, sw); err != nil {
			return errors.Join(err, saveErr)
		}
	}
	if saveErr != nil {
		return saveErr
	}
	// The verdicts go where a person reads them: under the table, or on
	// stderr when stdout holds JSON or CSV for a program.
	w := o.stdout
	if o.Format != "table" {
		w = o.stderr
	}
	return judge(w, sw, expect)
}

// planSweep reads the flags into a plan whose every point is valid, and
// the progress reporter (nil: none).
func planSweep(o sweepOptions) (sweep.Plan, *progress.Reporter, error) {
	var plan sweep.Plan
	if err := noArgs("sweep", o.args); err != nil {
		return plan, nil, err
	}
	threads, err := study.ParseThreads(o.Threads)
	if err != nil {
		return plan, nil, flagError("threads", o.Threads, err)
	}
	depths, err := study.ParseDepths(o.IODepths)
	if err != nil {
		return plan, nil, flagError("iodepth", o.IODepths, err)
	}
	if err := checkFormat(o.Format, "table", "json", "csv"); err != nil {
		return plan, nil, err
	}
	if o.Total == "auto" {
		// Each point would size itself from its own nodes' memory, and
		// a sweep's aggregate must stay the same at every point.
		return plan, nil, usage.Errorf("--total auto: not for sweeps, whose aggregate must be fixed; `ioswarm run --total auto` on the largest point's nodes prints the size to give")
	}
	spec, err := jobFrom(&o.ioOptions, &o.reportOptions, &o.launchOptions, o.given, 0, depths[0], o.stderr)
	if err != nil {
		return plan, nil, err
	}
	spec.work.CommandLine = o.commandLine
	if o.CSV != "" {
		if err := study.CheckCSV(o.CSV); err != nil {
			return plan, nil, usage.Wrap(err)
		}
	}
	plan = sweep.Plan{Base: spec.work, Launch: spec.launch, Threads: threads}
	if len(depths) > 1 {
		plan.Depths = depths
	}
	// study.Run checks the points again; here it is before the output
	// files are, so a bad point is the one line printed.
	if _, err := sweep.Points(plan.Base, plan.Launch, plan.Threads, plan.Depths); err != nil {
		return plan, nil, err
	}
	return plan, spec.rep.progress, nil
}

// sweepChartBase is where a sweep's chart goes: --chart, else next to
// --output, else nowhere.
func sweepChartBase(chartFlag, output string) string {
	if chartFlag != "" {
		return chartFlag
	}
	return output
}

// saveSweep writes the JSON file and the chart; both are wanted also
// from a sweep that stopped early, for the points it measured, and one
// failing does not stop the other.
func saveSweep(stderr io.Writer, sw *study.Sweep, output, chartBase string, spec chartSpec) error {
	var errs []error
	if output != "" {
		errs = append(errs, writeFileAtomic("output", output, func(w io.Writer) error { return study.WriteJSON(w, sw) }))
	}
	if chartBase != "" && anyComplete(sw) {
		errs = append(errs, drawChart(stderr, chartBase, []*study.Sweep{sw}, spec))
	}
	return errors.Join(errs...)
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
	progress *progress.Reporter // nil: none
	// fullTable prints every column (--details), not the compact table.
	fullTable bool
}

func newSweepPrinter(w io.Writer, format string, sw *study.Sweep, csvPath string, p *progress.Reporter) *sweepPrinter {
	return &sweepPrinter{w: w, format: format, sw: sw, csvPath: csvPath, progress: p}
}

// before names the point on the progress line; the table's header waits
// for the first point so that a launch failure prints no empty table.
func (s *sweepPrinter) before(o coordinator.Workload) {
	if r := s.progress; r != nil {
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
		s.table = study.NewCompactTable(s.w, s.sw)
		if s.fullTable {
			s.table = study.NewTable(s.w, s.sw)
		}
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
