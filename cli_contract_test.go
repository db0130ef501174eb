package main

import (
	"slices"
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
	golden.Held(t, cliListFile, cliNames(newApp().Commands, "ioswarm"),
		"a name users' scripts type was renamed or dropped (keep it, as an alias if need be)",
		"record it with go test -update -run "+t.Name()+" in the root package, so that it is held from now on")
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
