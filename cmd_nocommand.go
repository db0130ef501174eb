package main

import (
	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
)

// helpForNoCommand answers `ioswarm` alone: the commands on stderr and
// exit 2, since nothing was asked for; a script that forgot its command
// must not read it as success.
func helpForNoCommand(c *cli.Context) error {
	out := c.App.Writer
	c.App.Writer = c.App.ErrWriter
	defer func() { c.App.Writer = out }()
	if err := cli.ShowAppHelp(c); err != nil {
		return err
	}
	return shownUsageError{usage.Errorf("no command given")}
}
