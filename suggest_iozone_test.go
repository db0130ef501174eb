package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// IOzone's options typed into run or sweep get the ioswarm flag, not a
// "did you mean --h?" for a one-letter name.
func TestFlagProblemNamesIOzoneOptions(t *testing.T) {
	var o runOptions
	flags := o.flags()
	for _, c := range []struct{ in, want string }{
		{"flag provided but not defined: -s", "IOzone's -s is --file-size"},
		{"flag provided but not defined: -t", "IOzone's -t is --threads"},
		{"flag provided but not defined: -r", "IOzone's -r is --block"},
		{"flag provided but not defined: -i0", "IOzone's -i is --phases"},
		{"flag provided but not defined: -t8", "IOzone's -t is --threads"},
		{"flag provided but not defined: -+m", "--hosts FILE"},
		{"flag provided but not defined: -+u", "IOzone's -+u is measured in every run"},
		{"flag provided but not defined: -O", "ioswarm iozone runs IOzone command lines"},
		{"flag provided but not defined: -o", "IOzone's -o is --o-sync"},
		{"flag provided but not defined: -+D", "IOzone's -+D is --o-dsync"},
		{"flag provided but not defined: -thredas", "did you mean --threads?"},
	} {
		got := flagProblem(flags, errors.New(c.in)).Error()
		if !strings.Contains(got, c.want) || strings.Contains(got, "--h?") {
			t.Errorf("%q: got %q, want %q in it", c.in, got, c.want)
		}
	}
}

func TestIOzoneHelpFlag(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}} {
		var out, errs bytes.Buffer
		err := runIOzone(context.Background(), iozoneOptions{invocation{args: args, stdout: &out, stderr: &errs}})
		if err != nil || !strings.HasPrefix(out.String(), "usage: ioswarm iozone") {
			t.Errorf("%v: %v\n%s", args, err, out.String())
		}
	}
}
