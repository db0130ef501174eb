package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"ioswarm/internal/usage"
)

func TestFlagProblemHints(t *testing.T) {
	var o runOptions
	flags := o.flags()
	for _, c := range []struct{ in, want string }{
		{"flag provided but not defined: -threds", "unknown flag --threds: did you mean --threads?"},
		{"flag provided but not defined: -thredas", "did you mean --threads?"},
		{"flag provided but not defined: -outptu", "did you mean --output?"},
		{"flag provided but not defined: -zzzzzz", "unknown flag --zzzzzz (--help lists the flags)"},
		{`invalid value "10" for flag -stonewall: parse error`, `--stonewall "10": a duration needs a unit: write 10s`},
		{`invalid value "1.5" for flag -rand-time: parse error`, "write 1.5s"},
		{`invalid value "soon" for flag -stonewall: parse error`, "not a duration such as 30s"},
		{`invalid value "1..16" for flag -threads: parse error`, "ioswarm sweep --threads 1..16"},
		{`invalid value "four" for flag -threads: parse error`, `--threads "four": not a whole number`},
		{"flag needs an argument: -dir", "--dir needs a value"},
	} {
		got := flagProblem(flags, errors.New(c.in)).Error()
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: got %q, want %q in it", c.in, got, c.want)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	app := newApp()
	for in, want := range map[string]string{"swep": `did you mean "sweep"?`, "comapre": `did you mean "compare"?`, "xyzzy": "ioswarm help lists"} {
		err := unknownCommand(app.Commands, in)
		if !usage.Is(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", in, err)
		}
	}
	// Hidden commands are never proposed.
	if err := unknownCommand(app.Commands, "rnak"); strings.Contains(err.Error(), `"rank"`) {
		t.Errorf("proposed the hidden rank command: %v", err)
	}
}

func TestFlagsFirst(t *testing.T) {
	cmds := newApp().Commands
	for _, c := range []struct{ in, want string }{
		{"ioswarm compare A.json B.json --no-chart", "ioswarm compare --no-chart A.json B.json"},
		{"ioswarm plot a b c --chart x", "ioswarm plot --chart x a b c"},
		{"ioswarm plot a --chart=x b", "ioswarm plot --chart=x a b"},
		{"ioswarm plot a -- --chart", "ioswarm plot a -- --chart"},
		{"ioswarm run 4 --threads 2", "ioswarm run --threads 2 4"},
		{"ioswarm hosts probe --dir /x", "ioswarm hosts probe --dir /x"},
		{"ioswarm iozone -i0 -t 4 --format json", "ioswarm iozone -i0 -t 4 --format json"},
		{"ioswarm --help", "ioswarm --help"},
		{"ioswarm nosuch a --b", "ioswarm nosuch a --b"},
	} {
		if got := strings.Join(flagsFirst(cmds, strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// The app end to end, without starting ranks: help works, and bad
// command lines are usage errors.
func TestAppUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" = success
	}{
		{[]string{"help"}, ""},
		{[]string{"--help"}, ""},
		{[]string{"-h"}, ""},
		{[]string{"help", "sweep"}, ""},
		{[]string{"help", "swep"}, `did you mean "sweep"`},
		{[]string{"runn"}, `did you mean "run"`},
		{[]string{"run", "--threds", "4"}, "did you mean --threads?"},
		{[]string{"run", "--stonewall", "10"}, "write 10s"},
		{[]string{"compare", "/nonexistent/A.json", "B.json", "--no-chart"}, "/nonexistent/A.json"},
	} {
		app := newApp()
		var out strings.Builder
		app.Writer, app.ErrWriter = &out, &out
		err := app.RunContext(context.Background(), flagsFirst(app.Commands, append([]string{"ioswarm"}, c.args...)))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want == "" && !strings.Contains(out.String(), "USAGE:"):
			t.Errorf("%v: printed no help:\n%s", c.args, out.String())
		case c.want != "" && (!usage.Is(err) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"threads", "threads", 0}, {"threds", "threads", 1}, {"thredas", "threads", 1}, {"", "ab", 2}, {"kitten", "sitting", 3}} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// --help lists the flag groups in categoryOrder, then --help, then the
// examples.
func TestHelpGroupsInOrder(t *testing.T) {
	app := newApp()
	var out strings.Builder
	app.Writer = &out
	if err := app.RunContext(context.Background(), []string{"ioswarm", "help", "sweep"}); err != nil {
		t.Fatal(err)
	}
	at := -1
	for _, want := range append(append([]string(nil), categoryOrder...), "--help, -h", "EXAMPLES:") {
		i := strings.Index(out.String(), "\n   "+want)
		if want == "EXAMPLES:" {
			i = strings.Index(out.String(), "\n"+want)
		}
		if i <= at {
			t.Fatalf("%q at %d, after %d:\n%s", want, i, at, out.String())
		}
		at = i
	}
}
