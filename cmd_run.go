package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/study"
)

// runOptions are run's flags and arguments.
type runOptions struct {
	ioOptions
	reportOptions
	launchOptions
	invocation
	Threads, IODepth int
}

func (o *runOptions) flags() []cli.Flag {
	return concat(runThreadsFlags(&o.Threads, &o.IODepth), ioFlags(&o.ioOptions, false),
		reportFlags(&o.reportOptions), launchFlags(&o.launchOptions))
}

func runCommand() *cli.Command {
	var o runOptions
	return command(&cli.Command{
		Name:  "run",
		Usage: "run the phases once and report",
		Flags: o.flags(),
	}, runExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		o.HostsGiven = o.given["hosts"]
		return runRun(c.Context, o)
	})
}

const runExamples = `   ioswarm run                                      # this machine, the current directory, 5-30 s
   ioswarm run --dir /gpfs/scratch --threads 64 --hosts 'node[01-16]' --output gpfs.json
   ioswarm run --phases randwrite,randread --total 64GiB --engine io_uring --iodepth 32
   ioswarm sweep --threads 1..512 ...               # for a scaling study`

// runRun is `ioswarm run`.
func runRun(ctx context.Context, o runOptions) error {
	if err := noArgs("run", o.args); err != nil {
		return err
	}
	if err := checkFormat(o.Format, "table", "json", "csv"); err != nil {
		return err
	}
	details, err := detailsFrom(o.Details)
	if err != nil {
		return err
	}
	spec, err := jobFrom(&o.ioOptions, &o.reportOptions, &o.launchOptions, o.given, o.Threads, o.IODepth, o.stderr)
	if err != nil {
		return err
	}
	spec.work.CommandLine = o.commandLine
	if n, source := o.iozoneClients(); n > 0 && !o.given["threads"] {
		// IOzone runs a child per line of its client file: so do we,
		// unless --threads says otherwise.
		spec.work.Threads, spec.work.ThreadsFrom = n, fmt.Sprintf("one per line of %s", source)
	}
	if err := spec.work.Settle(spec.launch); err != nil {
		return err
	}
	if err := checkOutputs(o.stderr, outputPath{"output", o.Output, true}, outputPath{"csv", o.CSV, false}); err != nil {
		return err
	}
	job, runErr := coordinator.Run(ctx, spec.launch, spec.work)
	if job == nil {
		return runErr
	}
	saveErr := saveJob(job, o.Output, o.CSV)
	if runErr != nil {
		return errors.Join(runErr, saveErr)
	}
	if err := printJob(o.stdout, o.Format, job, details); err != nil {
		return errors.Join(err, saveErr)
	}
	return saveErr
}

// saveJob writes the result file and appends to the CSV file, each as
// far as it can: one failing does not stop the other.
func saveJob(job *result.Job, output, csv string) error {
	var errs []error
	if output != "" {
		errs = append(errs, writeFile("output", output, func(w io.Writer) error { return report.WriteJSON(w, job) }))
	}
	if csv != "" {
		if err := study.AppendCSV(csv, job); err != nil {
			errs = append(errs, fmt.Errorf("--csv: %w", err))
		}
	}
	return errors.Join(errs...)
}

func printJob(w io.Writer, format string, job *result.Job, d report.Details) error {
	switch format {
	case "json":
		return report.WriteJSON(w, job)
	case "csv":
		return report.WriteCSV(w, job, true)
	}
	return report.WriteTableWith(w, job, d)
}

// detailsFrom reads --details: a comma list of phases, nodes, threads, or all.
func detailsFrom(v string) (report.Details, error) {
	var d report.Details
	for _, w := range strings.Split(v, ",") {
		switch strings.TrimSpace(w) {
		case "":
		case "phases":
			d.Phases = true
		case "nodes":
			d.Nodes = true
		case "threads":
			d.Threads = true
		case "all":
			d = report.Details{Phases: true, Nodes: true, Threads: true}
		default:
			return d, flagError("details", v, fmt.Errorf("want phases, nodes, threads or all"))
		}
	}
	return d, nil
}
