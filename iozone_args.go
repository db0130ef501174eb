package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/hostlist"
	"ioswarm/internal/usage"
	"ioswarm/iozone"
	"ioswarm/settings"
)

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
	if cmd.ClientFile != "" && cmd.ControlHost != "" && ro.given["listen"] {
		return iozoneLine{}, usage.Errorf("-+h %s and --listen %s both say where the ranks reach the coordinator: give one", cmd.ControlHost, ro.Listen)
	}
	if err := checkFormat(ro.Format, "table", "json", "csv"); err != nil {
		return iozoneLine{}, err
	}
	return iozoneLine{cmd: cmd, ours: ours, run: ro}, nil
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
	if i := slices.Index(args, "--rand-call"); i >= 0 && (hasFlag(ours, "rand-call") || onRing(ours)) {
		// The user's choice stands alone on the line; and IOzone's calls
		// (lseek, then read or write) are the sync engine's: on a ring
		// each operation carries its offset.
		args = slices.Delete(args, i, i+2)
	}
	return append(args, ours...), nil
}

// onRing says whether ioswarm's own flags choose the io_uring engine.
func onRing(ours []string) bool {
	if !hasFlag(ours, "engine") {
		return false
	}
	ro, err := parseRunFlags(ours)
	return err == nil && ro.Engine == settings.IOUring.String()
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
