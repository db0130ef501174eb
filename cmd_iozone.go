package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

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
	return &cli.Command{
		Name:      "iozone",
		Usage:     "run an IOzone throughput command line (-i0 -i1 -i2 -t -s -r -+m ...) and print IOzone's report lines beside ioswarm's",
		UsageText: "ioswarm iozone [IOzone options] [--ioswarm-flag ...]   (ioswarm iozone -h lists the options)",
		Description: "The same job as `ioswarm run` with the equivalent flags (printed in the header). -i1 or -i2 without -i0\n" +
			"reads the files an earlier -w run left, checked against that run's manifest. docs/iozone.md maps every option.",
		SkipFlagParsing: true,
		Action:          iozoneAction,
	}
}

func iozoneAction(c *cli.Context) error {
	ours, theirs := splitLongFlags(c.Args().Slice())
	cmd, err := iozone.Parse(theirs)
	if err != nil {
		return usage.Wrap(err)
	}
	if cmd.Help {
		fmt.Print(iozone.Help)
		return nil
	}
	if cmd.ClientFile != "" {
		if err := checkClientFile(cmd); err != nil {
			return err
		}
	}
	var jobs []*result.Job
	var runErr error
	for _, n := range cmd.ThreadCounts() {
		job, err := runIOzonePoint(c, cmd, n, ours)
		if job != nil {
			jobs = append(jobs, job)
		}
		if err != nil {
			runErr = err
			break
		}
	}
	rc, err := flagContext(c, ours)
	if err != nil {
		return err
	}
	if out := rc.String("output"); out != "" && len(jobs) > 0 {
		if err := writeJobs(out, jobs); err != nil && runErr == nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	switch rc.String("format") {
	case "json":
		return writeJobsJSON(os.Stdout, jobs)
	case "csv":
		for i, job := range jobs {
			if err := report.WriteCSV(os.Stdout, job, i == 0); err != nil {
				return err
			}
		}
		return nil
	}
	for _, job := range jobs {
		fmt.Printf("\tioswarm: %s\n", cmd.Equivalent(job.Config.Threads))
	}
	return iozone.WriteAll(os.Stdout, jobs, cmd)
}

// runIOzonePoint runs cmd at one thread count, as `ioswarm run` with the
// equivalent flags would.
func runIOzonePoint(c *cli.Context, cmd iozone.Command, threads int, ours []string) (*result.Job, error) {
	args, err := cmd.RunArgs(threads)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	if !hasFlag(ours, "rand-time") {
		// IOzone's random tests do every operation.
		args = append(args, "--rand-time", "0")
	}
	if !hasFlag(ours, "read-shift") {
		// IOzone reads on the node that wrote: so do we, unless asked.
		args = append(args, "--read-shift", "0")
	}
	if cmd.NeedsExistingFiles() && !hasFlag(ours, "reuse") {
		args = append(args, "--reuse", coordinator.ReuseLatest)
	}
	rc, err := flagContext(c, append(args, ours...))
	if err != nil {
		return nil, err
	}
	format := rc.String("format")
	if format != "table" && format != "json" && format != "csv" {
		return nil, usage.Errorf("--format %q: must be table, json or csv", format)
	}
	l, o, err := optionsFrom(rc)
	if err != nil {
		return nil, err
	}
	// IOzone's -i2 random-writes into the files it finds; the bytes it
	// writes are the ones they hold already (the pattern is a function
	// of job, thread and offset), so the kept files stay verifiable.
	o.ReuseWrites = cmd.NeedsExistingFiles()
	o.CommandLine = "ioswarm iozone " + strings.Join(c.Args().Slice(), " ")
	if err := o.Validate(l); err != nil {
		return nil, err
	}
	return coordinator.Run(c.Context, l, o)
}

// checkClientFile applies IOzone's rule: no more threads than lines.
func checkClientFile(cmd iozone.Command) error {
	f, err := os.Open(cmd.ClientFile)
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
func splitLongFlags(args []string) (ours, theirs []string) {
	takesValue := map[string]bool{}
	for _, f := range runFlags() {
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
		ours = append(ours, a)
		if n, _, eq := strings.Cut(name, "="); !eq && takesValue[n] && i+1 < len(args) {
			i++
			ours = append(ours, args[i])
		}
	}
	return ours, theirs
}

func hasFlag(args []string, name string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "--"+name || strings.HasPrefix(a, "--"+name+"=")
	})
}

// runFlags are run's flags, which the iozone command takes too.
func runFlags() []cli.Flag {
	return append(append(ioFlags(), reportFlags()...), launchFlags()...)
}

// flagContext parses args against run's flags into a context of its own,
// so optionsFrom reads them as it reads run's.
func flagContext(c *cli.Context, args []string) (*cli.Context, error) {
	set := flag.NewFlagSet("iozone", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range runFlags() {
		if err := f.Apply(set); err != nil {
			return nil, err
		}
	}
	if err := set.Parse(args); err != nil {
		return nil, usage.Errorf("iozone: %w", err)
	}
	if set.NArg() > 0 {
		return nil, usage.Errorf("iozone: unexpected argument %q", set.Arg(0))
	}
	rc := cli.NewContext(c.App, set, c)
	rc.Command = &cli.Command{Name: "iozone"}
	return rc, nil
}

// writeJobs saves one result, or a list of them when the command ran
// several process counts (-l/-u).
func writeJobs(path string, jobs []*result.Job) error {
	if len(jobs) == 1 {
		return writeResult(path, jobs[0])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if err := writeJobsJSON(f, jobs); err != nil {
		f.Close()
		return fmt.Errorf("--output %s: %w", path, err)
	}
	return f.Close()
}

func writeJobsJSON(w io.Writer, jobs []*result.Job) error {
	if len(jobs) == 1 {
		return report.WriteJSON(w, jobs[0])
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jobs)
}
