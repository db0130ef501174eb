package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"ioswarm/internal/golden"
)

const cliListFile = "cli.txt"

// Users' scripts and job files call ioswarm by its commands' and flags'
// names: like a result field, a name may be added, never renamed or
// dropped (a renamed flag fails every script that used it). Every visible
// command and flag, aliases included, is listed in testdata; a name that
// went fails, a new one must be recorded with -update.
func TestNoCommandOrFlagUsersTypeIsRenamedOrDropped(t *testing.T) {
	got := cliNames(newApp().Commands, "ioswarm")
	if golden.Updating() {
		golden.Write(t, cliListFile, []byte(strings.Join(got, "\n")+"\n"))
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", cliListFile))
	if err != nil {
		t.Fatalf("%v (go test -update -run %s in the root package creates it)", err, t.Name())
	}
	want := strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%q is gone: a name users' scripts type was renamed or dropped (keep it, as an alias if need be)", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%q is new: record it with go test -update -run %s in the root package, so that it is held from now on", g, t.Name())
		}
	}
}

// cliNames lists "path name" for every visible command (and its aliases)
// and "path --flag" for every visible flag name and alias, recursively.
func cliNames(cmds []*cli.Command, path string) []string {
	var out []string
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		for _, name := range c.Names() {
			out = append(out, path+" "+name)
		}
		at := path + " " + c.Name
		for _, f := range c.Flags {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			for _, name := range f.Names() {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				out = append(out, at+" "+dash+name)
			}
		}
		out = append(out, cliNames(c.Subcommands, at)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
