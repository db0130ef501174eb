package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
	"ioswarm/study"
)

func compareCommand() *cli.Command {
	flags := append(chartFlags(), &cli.BoolFlag{Name: "no-chart", Usage: "print the table only"})
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare two systems point by point: the change in percent, and both on one chart",
		ArgsUsage: "A.json B.json",
		Description: "Points are matched by phase and thread count; the change is B relative to A\n" +
			"(+24.0% means B delivered 1.24 × A). Systems are named by their --label, else by file name.\n" +
			"The chart goes next to A as A-vs-B.svg and .png, or where --chart says.",
		Flags:  flags,
		Action: compareAction,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage.Wrap(err)
		},
	}
}

func compareAction(c *cli.Context) error {
	if c.Args().Len() != 2 {
		return usage.Errorf("compare: name two result files (ioswarm compare A.json B.json)")
	}
	size, err := chartSizeFrom(c)
	if err != nil {
		return err
	}
	ss, err := loadStudies(c.Args().Slice())
	if err != nil {
		return err
	}
	if err := study.WriteCompare(os.Stdout, ss[0], ss[1]); err != nil {
		if errors.Is(err, study.ErrNothingInCommon) {
			return usage.Errorf("compare: %w", err)
		}
		return err
	}
	if c.Bool("no-chart") {
		return nil
	}
	base := c.String("chart")
	if base == "" {
		a, b := c.Args().Get(0), c.Args().Get(1)
		base = filepath.Join(filepath.Dir(a), stem(a)+"-vs-"+stem(b))
	}
	return drawChart(os.Stdout, base, ss, size)
}

// stem is a file's name without directory and extension.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
