package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/preflight"
)

// hostsCommand is the preflight: every node of --hosts is reached the way
// `run` would reach it, and probed. Its hidden subcommand `probe` is what
// runs on the node (preflight.ProbeArgs names it).
func hostsCommand() *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "dir", Value: ".", Usage: "benchmark directory to check on every node"},
		&cli.StringFlag{Name: "format", Value: "table", Usage: "table or json"},
		&cli.IntFlag{Name: "clock-samples", Value: 16, Usage: "round trips per node for the clock comparison"},
		&cli.BoolFlag{Name: "quiet", Usage: "no launcher log lines"},
	}, launchFlags()...)
	return &cli.Command{
		Name:  "hosts",
		Usage: "check every node before a run: reachable, user, arch, kernel, filesystem and free space of --dir, writable, cache dropping, clock offset",
		Description: "Exits 1 if any node fails. The clock offset is the node's wall clock minus this machine's, with the\n" +
			"bound of its error (half the best round trip); ioswarm itself times with each node's monotonic clock.",
		Flags:           flags,
		Action:          hostsAction,
		HideHelpCommand: true,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage.Wrap(err)
		},
		Subcommands: []*cli.Command{{
			Name:   "probe",
			Hidden: true,
			Flags:  []cli.Flag{&cli.StringFlag{Name: "dir", Required: true}},
			Action: func(c *cli.Context) error {
				return preflight.Serve(c.String("dir"), os.Stdin, os.Stdout)
			},
		}},
	}
}

func hostsAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usage.Errorf("hosts: unexpected argument %q (flags start with --)", c.Args().First())
	}
	format := c.String("format")
	if format != "table" && format != "json" {
		return usage.Errorf("--format %q: must be table or json", format)
	}
	var logOut io.Writer = os.Stderr
	if c.Bool("quiet") {
		logOut = io.Discard
	}
	log := launcher.NewLineWriter(logOut)
	l, targets, err := launchFrom(c, log)
	if err != nil {
		return err
	}
	defer l.Close()
	if len(targets) == 0 {
		host, _ := os.Hostname()
		targets = []launcher.Target{{Rank: 0, Host: host}}
	}
	results, err := preflight.Check(c.Context, preflight.Options{
		Launcher: l, Targets: targets, Dir: c.String("dir"),
		Samples: c.Int("clock-samples"), Fanout: c.Int("ssh-fanout"), Timeout: time.Minute,
	})
	if err != nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(results)
	} else {
		err = preflight.WriteTable(os.Stdout, results)
	}
	if err != nil {
		return err
	}
	for _, r := range results {
		if !r.OK {
			return silentError{fmt.Errorf("preflight failed")}
		}
	}
	return nil
}
