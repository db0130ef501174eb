package main

import (
	"github.com/urfave/cli/v2"

	"ioswarm/launcher"
)

// srunDetected reports whether ioswarm runs inside a Slurm allocation,
// where --launcher auto chooses srun. This build has no srun launcher.
func srunDetected() bool { return false }

// srunLauncher starts ranks with srun inside a Slurm allocation.
func srunLauncher(c *cli.Context, log *launcher.LineWriter) (launcher.Launcher, []launcher.Target, error) {
	return nil, nil, usageError{msg: "srun launcher not available in this build"}
}
