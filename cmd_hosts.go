package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/launcher"
	"ioswarm/preflight"
)

// hostsOptions are the preflight's flags and arguments.
type hostsOptions struct {
	launchOptions
	Dir, Format  string
	ClockSamples int
	Quiet        bool
	Details      bool
	invocation
}

// hostsCommand is the preflight: every node of --hosts is reached the way
// `run` would reach it, and probed. Its hidden subcommand `probe` is what
// runs on the node (preflight.ProbeArgs names it).
func hostsCommand() *cli.Command {
	var o hostsOptions
	var probeDir, markerStep, markerToken string
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "dir", Value: ".", Destination: &o.Dir, Category: catIO, Usage: "benchmark directory to check on every node"},
		&cli.StringFlag{Name: "format", Value: "table", Destination: &o.Format, Category: catOutput, Usage: "table or json"},
		&cli.IntFlag{Name: "clock-samples", Value: 16, Destination: &o.ClockSamples, Category: catOutput, Usage: "round trips per node for the clock comparison"},
		&cli.BoolFlag{Name: "quiet", Destination: &o.Quiet, Category: catOutput, Usage: "no launcher log lines"},
		&cli.BoolFlag{Name: "details", Destination: &o.Details, Category: catOutput, Usage: "every column of the table (user, arch, kernel, io_uring, wall clock offset), wider than 80"},
	}, launchFlags(&o.launchOptions)...)
	cmd := command(&cli.Command{
		Name:  "hosts",
		Usage: "check every node before a run: reachable, user, arch, kernel, filesystem and free space of --dir, writable, cache dropping, clock offset, --dir shared",
		Description: "Exits 1 if any node fails. The clock offset is the node's wall clock minus this machine's, with the\n" +
			"bound of its error (half the best round trip); ioswarm itself times with each node's monotonic clock.",
		Flags:           flags,
		HideHelpCommand: true,
		Subcommands: []*cli.Command{{
			Name:   "probe",
			Hidden: true,
			Flags:  []cli.Flag{&cli.StringFlag{Name: "dir", Required: true, Destination: &probeDir}},
			Action: func(c *cli.Context) error {
				return preflight.Serve(probeDir, os.Stdin, os.Stdout)
			},
		}, {
			Name:   "marker",
			Hidden: true,
			Flags: []cli.Flag{&cli.StringFlag{Name: "dir", Required: true, Destination: &probeDir},
				&cli.StringFlag{Name: "step", Required: true, Destination: &markerStep},
				&cli.StringFlag{Name: "token", Required: true, Destination: &markerToken}},
			Action: func(c *cli.Context) error {
				return preflight.Marker(markerStep, probeDir, markerToken, os.Stdout)
			},
		}},
	}, hostsExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		o.HostsGiven = o.given["hosts"]
		return runHosts(c.Context, o)
	})
	return cmd
}

const hostsExamples = `   ioswarm hosts --hosts 'node[01-16]' --dir /gpfs/scratch
   ioswarm hosts --hosts nodes.txt --format json`

// runHosts is `ioswarm hosts`.
func runHosts(ctx context.Context, o hostsOptions) error {
	if err := noArgs("hosts", o.args); err != nil {
		return err
	}
	if err := checkFormat(o.Format, "table", "json"); err != nil {
		return err
	}
	logOut := o.stderr
	if o.Quiet {
		logOut = io.Discard
	}
	l, targets, err := launcherFrom(&o.launchOptions, launcher.NewLineWriter(logOut))
	if err != nil {
		return err
	}
	defer l.Close()
	if len(targets) == 0 {
		host, _ := os.Hostname()
		targets = []launcher.Target{{Rank: 0, Host: host}}
	}
	targets = distinctTargets(targets)
	results, err := preflight.Check(ctx, preflight.Options{
		Launcher: l, Targets: targets, Dir: o.Dir,
		Samples: o.ClockSamples, Fanout: o.SSHFanout, Timeout: time.Minute,
	})
	if err != nil {
		return err
	}
	if o.Format == "json" {
		enc := json.NewEncoder(o.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(results)
	} else if o.Details {
		err = preflight.WriteTable(o.stdout, results)
	} else {
		err = preflight.WriteCompactTable(o.stdout, results)
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
