package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
)

// The Go flag package's parse errors, which the CLI passes on.
var (
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -{1,2}(\S+)$`)
	invalidValue  = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for flag -{1,2}(\S+): (.*)$`)
	missingValue  = regexp.MustCompile(`^flag needs an argument: -{1,2}(\S+)$`)
)

// flagProblem rewrites a flag parse error in the words of the command
// line (--name, never -name) and adds what the user most likely meant.
func flagProblem(flags []cli.Flag, err error) error {
	msg := err.Error()
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		if h := iozoneHint(m[1]); h != "" {
			return fmt.Errorf("unknown flag -%s: %s", m[1], h)
		}
		if best := closest(m[1], flagNames(flags)); best != "" {
			return fmt.Errorf("unknown flag --%s: did you mean --%s?", m[1], best)
		}
		return fmt.Errorf("unknown flag --%s (--help lists the flags)", m[1])
	}
	if m := missingValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("--%s needs a value", m[1])
	}
	m := invalidValue.FindStringSubmatch(msg)
	if m == nil {
		return err
	}
	value, name := m[1], m[2]
	// The flag package quoted the value (%q); it is quoted again below.
	if v, err := strconv.Unquote(`"` + value + `"`); err == nil {
		value = v
	}
	if why := valueProblem(flagOf(flags, name), name, value); why != "" {
		if _, ok := flagOf(flags, name).(*cli.BoolFlag); ok {
			why += " (or the flag alone for true)"
		}
		return fmt.Errorf("--%s %q: %s", name, value, why)
	}
	return fmt.Errorf("--%s %q: %s", name, value, m[3])
}

// valueProblem says what is wrong with value for flag f (named name),
// where the flag package only says "parse error": "" where it cannot
// tell. The command line and a study plan's lines both say it.
func valueProblem(f cli.Flag, name, value string) string {
	switch f.(type) {
	case *cli.DurationFlag:
		if n, err := strconv.ParseFloat(value, 64); err == nil {
			return fmt.Sprintf("a duration needs a unit: write %ss (or ms, m, h)", strconv.FormatFloat(n, 'f', -1, 64))
		}
		if _, err := time.ParseDuration(value); err != nil {
			return "not a duration such as 30s, 5m or 1h30m"
		}
	case *cli.IntFlag:
		if name == "threads" && strings.ContainsAny(value, ".,") {
			return fmt.Sprintf("run takes one thread count; for several, `ioswarm sweep --threads %s` runs each on one set of ranks", usage.Value(value))
		}
		return "not a whole number"
	case *cli.BoolFlag:
		return "want true or false"
	}
	return ""
}

func flagOf(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func flagNames(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	return names
}

// unknownCommand is the usage error for a first argument that names no
// command.
func unknownCommand(cmds []*cli.Command, name string) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	if best := closest(name, names); best != "" {
		return usage.Errorf("unknown command %q: did you mean %q? (ioswarm help lists the commands)", name, best)
	}
	return usage.Errorf("unknown command %q (ioswarm help lists the commands)", name)
}

// closest is the candidate nearest to s by edit distance, if it is near
// enough to be a typo of it (or s is its prefix), else "".
func closest(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(s, c)
		if strings.HasPrefix(c, s) && len(s) >= 3 {
			d = min(d, 1)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(s)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance, with a swap of two adjacent
// letters counted as one edit (thredas → threads).
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// flagsFirst moves the flags given after a command's positional arguments
// in front of them (compare A.json B.json --no-chart), since the CLI stops
// reading flags at the first argument that is not one. A command that
// parses its own arguments (iozone) is left alone, "--" ends the flags,
// and a subcommand's flags stay its own.
func flagsFirst(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		out, rest = append(out, rest[0]), rest[1:] // the app's own flags (--help)
	}
	for len(rest) > 0 {
		cmd := findCommand(cmds, rest[0])
		if cmd == nil || cmd.SkipFlagParsing {
			return append(out, rest...)
		}
		out = append(out, rest[0])
		flags, positional, sub := splitArgs(cmd, rest[1:])
		out = append(out, flags...)
		if !sub {
			return append(out, positional...)
		}
		// positional starts with the subcommand's name.
		cmds, rest = cmd.Subcommands, positional
	}
	return out
}

// splitArgs separates a command's flags (with their values) from its
// positional arguments. When the first positional argument names a
// subcommand, the rest is the subcommand's, untouched, and sub is true.
func splitArgs(cmd *cli.Command, args []string) (flags, positional []string, sub bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(positional, args[i:]...), false
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if len(positional) == 0 {
				if findCommand(cmd.Subcommands, a) != nil {
					return flags, args[i:], true
				}
			}
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if _, isBool := flagOf(cmd.Flags, name).(*cli.BoolFlag); !hasValue && !isBool && flagOf(cmd.Flags, name) != nil && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional, false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
