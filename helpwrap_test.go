package main

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// The top-level help and every command's keep to 80 columns once the
// printer wraps them, and lose no word on the way.
func TestHelpFitsEightyColumns(t *testing.T) {
	wrapHelpAt(80)
	for _, args := range [][]string{{"--help"}, {"help", "run"}, {"help", "sweep"}, {"help", "compare"},
		{"help", "plot"}, {"help", "hosts"}, {"help", "iozone"}} {
		app := newApp()
		var out strings.Builder
		app.Writer = &out
		if err := app.RunContext(context.Background(), append([]string{"ioswarm"}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%v: %d columns: %q", args, n, line)
			}
		}
		if !strings.Contains(out.String(), "USAGE:") {
			t.Errorf("%v: no help:\n%s", args, out.String())
		}
	}
}

func TestWrapHelp(t *testing.T) {
	in := strings.Join([]string{
		"COMMANDS:",
		"   hosts    check every node before a run: reachable, user, arch, kernel, filesystem",
		"EXAMPLES:",
		"   ioswarm run --dir /gpfs/scratch --threads 64 --hosts 'node[01-16]'   # sixteen nodes, one file a thread",
	}, "\n")
	want := strings.Join([]string{
		"COMMANDS:",
		"   hosts    check every node before a run: reachable, user, arch, kernel,",
		"            filesystem",
		"EXAMPLES:",
		"   # sixteen nodes, one file a thread",
		"   ioswarm run --dir /gpfs/scratch --threads 64 --hosts 'node[01-16]'",
	}, "\n")
	if got := wrapHelp(in, 80); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	long := "   ioswarm sweep --threads 1..512 --total 1TiB --hosts nodes.txt --dir /lustre/scratch --output lustre.json"
	got := wrapHelp("EXAMPLES:\n"+long, 80)
	if !strings.Contains(got, " \\\n       ") || strings.Join(strings.Fields(strings.ReplaceAll(got, "\\", "")), " ") !=
		"EXAMPLES: "+strings.Join(strings.Fields(long), " ") {
		t.Errorf("a long command not continued with a backslash, or words lost:\n%s", got)
	}
}
