package main

import "github.com/urfave/cli/v2"

// tableDetailsFlag is sweep's and compare's --details: every column of
// today's table instead of the compact one that fits 80 columns.
func tableDetailsFlag(dest *bool) cli.Flag {
	return &cli.BoolFlag{Name: "details", Destination: dest, Category: catOutput,
		Usage: "every column of the table (first-done, sum of thread rates, random phases' GB/s), wider than 80"}
}

// withoutFlag returns flags without the one named name: a shared group
// whose flag of that name means something else in one command.
func withoutFlag(flags []cli.Flag, name string) []cli.Flag {
	out := make([]cli.Flag, 0, len(flags))
	for _, f := range flags {
		if f.Names()[0] != name {
			out = append(out, f)
		}
	}
	return out
}
