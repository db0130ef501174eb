package main

import (
	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
)

func newApp() *cli.App {
	return &cli.App{
		Name:    "ioswarm",
		Usage:   "measure what a filesystem really delivers to a cluster",
		Version: fullVersion(),
		Description: "N threads over many nodes write and read N files (or do random 4 KiB I/O), timed together;\n" +
			"figures are defined in the README. With no hosts, ranks run on this machine.",
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + exitCodesHelp + "\n",
		Commands: []*cli.Command{
			runCommand(),
			iozoneCommand(),
			sweepCommand(),
			compareCommand(),
			plotCommand(),
			hostsCommand(),
			versionCommand(),
			rankCommand(),
			cleanupCommand(),
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage.Wrap(err)
		},
		// Errors are printed once, by main, as one line.
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
		CommandNotFound: nil,
	}
}

// flagError names the flag and its value.
func flagError(flag, value string, err error) error {
	return usage.Errorf("--%s %q: %w", flag, value, err)
}
