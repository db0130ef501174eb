package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/hostlist"
	"ioswarm/internal/usage"
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
		if err := iozone.WriteHeader(o.stdout, cmd, iozoneCommandLine(o), time.Now()); err != nil {
			return err
		}
	}
	jobs, runErr := runIOzonePoints(ctx, o, line, table)
	var saveErr error
	if ro.Output != "" && len(jobs) > 0 {
		saveErr = writeFile("output", ro.Output, func(w io.Writer) error { return writeIOzoneJSON(w, cmd, o, jobs) })
	}
	if runErr != nil {
		return errors.Join(runErr, saveErr)
	}
	return errors.Join(printIOzoneEnd(o, ro.Format, cmd, jobs), saveErr)
}

// iozoneLine is an iozone command line parsed: IOzone's options, and
// run's long flags as given (ours) and parsed.
type iozoneLine struct {
	cmd  iozone.Command
	ours []string
	run  runOptions
}

// parseIOzoneLine splits the words into IOzone's options and run's long
// flags and checks both; a line asking for help is not checked further.
func parseIOzoneLine(o iozoneOptions) (iozoneLine, error) {
	ours, theirs, err := splitLongFlags(o.args)
	if err != nil {
		return iozoneLine{}, err
	}
	cmd, err := iozone.Parse(theirs)
	if err != nil {
		return iozoneLine{}, usage.Wrap(err)
	}
	if cmd.Help {
		return iozoneLine{cmd: cmd}, nil
	}
	if err := cmd.CheckRecords(); err != nil {
		return iozoneLine{}, usage.Wrap(err)
	}
	if cmd.ClientFile != "" {
		if err := checkClientFile(cmd); err != nil {
			return iozoneLine{}, err
		}
	}
	ro, err := parseRunFlags(ours)
	if err != nil {
		return iozoneLine{}, err
	}
	if err := checkFormat(ro.Format, "table", "json", "csv"); err != nil {
		return iozoneLine{}, err
	}
	return iozoneLine{cmd: cmd, ours: ours, run: ro}, nil
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
		if err := checkOutputs(o.stderr, outputPath{"output", ro.Output, true}); err != nil {
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

// iozoneRunArgs are the `ioswarm run` flags that run cmd at a thread
// count, ioswarm's own flags from the command line included: run as
// printed, they give the same job.
func iozoneRunArgs(cmd iozone.Command, threads int, ours []string) ([]string, error) {
	args, err := cmd.RunArgs(threads)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	if !hasFlag(ours, "rand-time") {
		// IOzone's random tests do every operation.
		args = append(args, "--rand-time", "0")
	}
	if !cmd.NoStonewall && !hasFlag(ours, "first-done-stop") {
		// IOzone's default stonewall, live (docs/iozone.md).
		args = append(args, "--first-done-stop")
	}
	if !hasFlag(ours, "read-shift") {
		// IOzone reads on the node that wrote: so do we, unless asked.
		args = append(args, "--read-shift", "0")
	}
	if cmd.NeedsExistingFiles() && !hasFlag(ours, "reuse") {
		args = append(args, "--reuse", coordinator.ReuseLatest)
	}
	return append(args, ours...), nil
}

// shellWords joins args for a shell, quoting the words that need it.
func shellWords(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;~#!") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// checkClientFile applies IOzone's rule: no more threads than lines.
func checkClientFile(cmd iozone.Command) error {
	f, err := hostlist.OpenRegular(cmd.ClientFile)
	if err != nil {
		return usage.Errorf("-+m %s: %w", cmd.ClientFile, err)
	}
	defer f.Close()
	entries, err := hostlist.ParseIOzone(f, cmd.ClientFile)
	if err != nil {
		return usage.Errorf("-+m %s: %w", cmd.ClientFile, err)
	}
	if err := iozone.CheckClients(len(entries), cmd.MaxThreads()); err != nil {
		return usage.Errorf("-+m %s: %w", cmd.ClientFile, err)
	}
	return nil
}

// splitLongFlags separates ioswarm's own flags (--name, --name=value and
// the value after a --name that takes one) from IOzone's, which start
// with a single dash.
// An unknown long flag is an error here, before its value could be
// taken for an IOzone option.
func splitLongFlags(args []string) (ours, theirs []string, err error) {
	takesValue := map[string]bool{}
	var ro runOptions
	flags := ro.flags()
	for _, f := range flags {
		if _, isBool := f.(*cli.BoolFlag); !isBool {
			for _, n := range f.Names() {
				takesValue[n] = true
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, hasValue := strings.CutPrefix(a, "--")
		if !hasValue || name == "" {
			theirs = append(theirs, a)
			continue
		}
		n, _, eq := strings.Cut(name, "=")
		if flagOf(flags, n) == nil {
			return nil, nil, usage.Errorf("iozone: %w", flagProblem(flags, fmt.Errorf("flag provided but not defined: -%s", n)))
		}
		ours = append(ours, a)
		if !eq && takesValue[n] && i+1 < len(args) {
			i++
			ours = append(ours, args[i])
		}
	}
	return ours, theirs, nil
}

func hasFlag(args []string, name string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "--"+name || strings.HasPrefix(a, "--"+name+"=")
	})
}

// parseRunFlags parses args against run's flags, which the iozone
// command takes too.
func parseRunFlags(args []string) (runOptions, error) {
	var ro runOptions
	set := flag.NewFlagSet("iozone", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	flags := ro.flags()
	for _, f := range flags {
		if err := f.Apply(set); err != nil {
			return ro, err
		}
	}
	if err := set.Parse(args); err != nil {
		return ro, usage.Errorf("iozone: %w", flagProblem(flags, err))
	}
	if set.NArg() > 0 {
		return ro, usage.Errorf("iozone: unexpected argument %q", set.Arg(0))
	}
	ro.given = given{}
	set.Visit(func(f *flag.Flag) { ro.given[f.Name] = true })
	ro.HostsGiven = ro.given["hosts"]
	return ro, nil
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
