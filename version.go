package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"ioswarm/barrier"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// fullVersion adds the commit the binary was built from, which Go records
// when building in a git checkout, so a result file names the exact build.
func fullVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return version
	case dirty:
		return version + "+" + rev + "-dirty"
	}
	return version + "+" + rev
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the build, Go version, platform and protocol version",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "ioswarm %s (%s, %s/%s, barrier protocol %d)\n",
				fullVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, barrier.ProtocolVersion)
			return err
		},
	}
}
