package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"ioswarm/coordinator"
	"ioswarm/iozone"
	"ioswarm/report"
	"ioswarm/result"
)

// iozoneCommand runs an IOzone throughput command line as it stands. Its
// arguments are IOzone's (-i0 -t 8 -+m FILE ...), parsed by package
// iozone; ioswarm's own long flags (--format, --output, --ssh-config, ...)
// may be mixed in and work as in run.
func iozoneCommand() *cli.Command {
	return command(&cli.Command{
		Name:      "iozone",
		Usage:     "run an IOzone throughput command line (-i0 -i1 -i2 -t -s -r -+m ...) and print IOzone's report lines beside ioswarm's",
		UsageText: "ioswarm iozone [IOzone options] [--ioswarm-flag ...]   (ioswarm iozone -h lists the options)",
		Description: "The same job as `ioswarm run` with the equivalent flags (printed in the header). -i1 or -i2 without -i0\n" +
			"reads the files an earlier -w run left, checked against that run's manifest. docs/iozone.md maps every option.",
		SkipFlagParsing: true,
	}, iozoneExamples, func(c *cli.Context) error {
		return runIOzone(c.Context, iozoneOptions{invocationFrom(c)})
	})
}

const iozoneExamples = `   ioswarm iozone -i0 -i1 -t 16 -s 4g -r 16m -+m clients.txt -e -c
   ioswarm iozone -i0 -i2 -t 8 -s 1g -r 4k --format json --output iozone.json`

// iozoneOptions are the iozone command's arguments: IOzone's options and
// run's long flags, mixed, parsed here rather than by the CLI.
type iozoneOptions struct{ invocation }

// runIOzone is `ioswarm iozone`.
func runIOzone(ctx context.Context, o iozoneOptions) error {
	if slices.Contains(o.args, "--help") {
		// The CLI leaves the words to this command, so its --help too.
		_, err := fmt.Fprint(o.stdout, iozone.Help)
		return err
	}
	line, err := parseIOzoneLine(o)
	if err != nil {
		return err
	}
	if line.cmd.Help {
		fmt.Fprint(o.stdout, iozone.Help)
		return nil
	}
	cmd, ro := line.cmd, line.run
	table := ro.Format == "table"
	if table {
		if slices.Contains(cmd.Settings, iozone.MachineSetting) {
			cmd.Machine = unameAll(ctx) // only the header shows it
		}
		if err := iozone.WriteHeader(o.stdout, cmd, iozoneCommandLine(o), time.Now()); err != nil {
			return err
		}
	}
	jobs, runErr := runIOzonePoints(ctx, o, line, table)
	var saveErr error
	if ro.Output != "" && len(jobs) > 0 {
		saveErr = writeFile("output", ro.Output, func(w io.Writer) error { return writeIOzoneJSON(w, cmd, o, jobs) })
	}
	if cmd.Workbook != "" && len(jobs) > 0 {
		saveErr = errors.Join(saveErr, writeFile("-b", cmd.Workbook, func(w io.Writer) error {
			return iozone.WriteWorkbook(w, jobs, cmd, iozoneCommandLine(o))
		}))
	}
	if runErr != nil {
		return errors.Join(runErr, saveErr)
	}
	return errors.Join(printIOzoneEnd(o, ro.Format, cmd, jobs), saveErr)
}

// runIOzonePoints runs the line at each of its thread counts, printing
// each job as it ends when table, and stops at the first that fails. It
// returns the jobs that ran, the failed one included.
func runIOzonePoints(ctx context.Context, o iozoneOptions, line iozoneLine, table bool) ([]*result.Job, error) {
	var jobs []*result.Job
	var runErr error
	for i, n := range line.cmd.ThreadCounts() {
		job, err := runIOzonePoint(ctx, o, line.cmd, n, line.ours, i == 0)
		if job != nil {
			jobs = append(jobs, job)
			if table {
				runErr = printIOzoneJob(o, line.cmd, job)
			}
		}
		if err != nil || runErr != nil {
			runErr = errors.Join(runErr, err)
			break
		}
	}
	return jobs, runErr
}

// unameAll is what -M reports, as IOzone reads it: the output of `uname
// -a` on the machine the command runs on, less its newline; the kernel's
// own names where uname cannot be run.
func unameAll(ctx context.Context) string {
	if out, err := exec.CommandContext(ctx, "uname", "-a").Output(); err == nil {
		return strings.TrimRight(string(out), "\n")
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return strings.Join([]string{unix.ByteSliceToString(u.Sysname[:]), unix.ByteSliceToString(u.Nodename[:]),
		unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:]), unix.ByteSliceToString(u.Machine[:])}, " ")
}

// iozoneCommandLine is what IOzone's "Command line used:" line shows:
// the words as typed, program name included.
func iozoneCommandLine(o iozoneOptions) []string {
	if o.commandLine != "" {
		return strings.Fields(o.commandLine)
	}
	return append([]string{"ioswarm", "iozone"}, o.args...)
}

// printIOzoneJob prints one job as it ends, as IOzone prints each thread
// count's tests: IOzone's lines on stdout, ioswarm's own figures on
// stderr, where scripts that read IOzone's lines do not look.
func printIOzoneJob(o iozoneOptions, cmd iozone.Command, job *result.Job) error {
	if err := iozone.WriteReport(o.stdout, job, cmd); err != nil {
		return err
	}
	return iozone.WriteOwnReport(o.stderr, job, cmd)
}

// printIOzoneEnd prints what comes after the last job: IOzone's -R table
// and closing line, or every job in JSON or CSV.
func printIOzoneEnd(o iozoneOptions, format string, cmd iozone.Command, jobs []*result.Job) error {
	switch format {
	case "json":
		return writeIOzoneJSON(o.stdout, cmd, o, jobs)
	case "csv":
		for i, job := range jobs {
			if err := report.WriteCSV(o.stdout, job, i == 0); err != nil {
				return err
			}
		}
		return nil
	}
	return iozone.WriteEnd(o.stdout, jobs, cmd)
}

// runIOzonePoint runs cmd at one thread count, as `ioswarm run` with the
// equivalent flags would. The first point checks the output files.
func runIOzonePoint(ctx context.Context, o iozoneOptions, cmd iozone.Command, threads int, ours []string, first bool) (*result.Job, error) {
	args, err := iozoneRunArgs(cmd, threads, ours)
	if err != nil {
		return nil, err
	}
	ro, err := parseRunFlags(args)
	if err != nil {
		return nil, err
	}
	spec, err := jobFrom(&ro.ioOptions, &ro.reportOptions, &ro.launchOptions, ro.given, ro.Threads, ro.IODepth, o.stderr)
	if err != nil {
		return nil, err
	}
	if n, source := ro.iozoneClients(); n > 0 && !ro.given["threads"] {
		spec.work.Threads, spec.work.ThreadsFrom = n, fmt.Sprintf("one per line of %s", source)
	}
	// IOzone's -i2 random-writes into the files it finds; the bytes it
	// writes are the ones they hold already (the pattern is a function
	// of job, thread and offset), so the kept files stay verifiable.
	spec.work.ReuseWrites = cmd.NeedsExistingFiles()
	spec.work.CommandLine = "ioswarm iozone " + strings.Join(o.args, " ")
	if err := spec.work.Settle(spec.launch); err != nil {
		return nil, err
	}
	if first {
		if err := checkOutputs(o.stderr, outputPath{"output", ro.Output, true}, outputPath{"-b", cmd.Workbook, true}); err != nil {
			return nil, err
		}
		// -l/-u: every thread count's resource plan before the first writes.
		spec.work.PlanThreads = cmd.ThreadCounts()
	}
	job, err := coordinator.Run(ctx, spec.launch, spec.work)
	err = iozoneError(err, cmd)
	if err == nil {
		// After the job, so that a refused command stays one line.
		fmt.Fprintf(o.stderr, "ioswarm iozone -t %d ran the same job as: ioswarm run %s\n", threads, shellWords(args))
	}
	return job, err
}

// writeIOzoneJSON writes the jobs with every IOzone line's value, in
// one shape whatever the number of thread counts.
func writeIOzoneJSON(w io.Writer, cmd iozone.Command, o iozoneOptions, jobs []*result.Job) error {
	r, err := iozone.NewResult(cmd, strings.Join(iozoneCommandLine(o), " "), jobs)
	if err != nil {
		return err
	}
	return r.WriteJSON(w)
}
