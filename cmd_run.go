package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/study"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:   "run",
		Usage:  "run the phases once and report",
		Flags:  append(append(ioFlags(), reportFlags()...), launchFlags()...),
		Action: func(c *cli.Context) error { return runAction(c) },
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage.Wrap(err)
		},
	}
}

func runAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usage.Errorf("run: unexpected argument %q (flags start with --)", c.Args().First())
	}
	l, o, err := optionsFrom(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if format != "table" && format != "json" && format != "csv" {
		return usage.Errorf("--format %q: must be table, json or csv", format)
	}
	details, err := detailsFrom(c.String("details"))
	if err != nil {
		return err
	}
	if err := o.Validate(l); err != nil {
		return err
	}
	job, runErr := coordinator.Run(c.Context, l, o)
	if job == nil {
		return runErr
	}
	if out := c.String("output"); out != "" {
		if err := writeResult(out, job); err != nil {
			return err
		}
	}
	if path := c.String("csv"); path != "" {
		if err := study.AppendCSV(path, job); err != nil && runErr == nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	return printJob(os.Stdout, format, job, details)
}

func printJob(w io.Writer, format string, job *result.Job, d report.Details) error {
	switch format {
	case "json":
		return report.WriteJSON(w, job)
	case "csv":
		return report.WriteCSV(w, job, true)
	}
	return report.WriteTableWith(w, job, d)
}

// detailsFrom reads --details: a comma list of phases, nodes, threads, or all.
func detailsFrom(v string) (report.Details, error) {
	var d report.Details
	for _, w := range strings.Split(v, ",") {
		switch strings.TrimSpace(w) {
		case "":
		case "phases":
			d.Phases = true
		case "nodes":
			d.Nodes = true
		case "threads":
			d.Threads = true
		case "all":
			d = report.Details{Phases: true, Nodes: true, Threads: true}
		default:
			return d, flagError("details", v, fmt.Errorf("want phases, nodes, threads or all"))
		}
	}
	return d, nil
}

func writeResult(path string, job *result.Job) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if err := report.WriteJSON(f, job); err != nil {
		f.Close()
		return fmt.Errorf("--output %s: %w", path, err)
	}
	return f.Close()
}
