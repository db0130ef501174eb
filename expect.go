package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"ioswarm/acceptance"
	"ioswarm/settings"
	"ioswarm/study"
)

func expectFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "expect", Destination: dest, Category: catOutput,
		Usage: "acceptance test: judge the study against expected figures, e.g. 'write>=20GB/s@64,randread>=500kIOPS@256'; exit 3 when one is not met"}
}

// parseExpect reads --expect; "" expects nothing.
func parseExpect(spec string) ([]acceptance.Expectation, error) {
	if spec == "" {
		return nil, nil
	}
	es, err := acceptance.Parse(spec)
	if err != nil {
		return nil, flagError("expect", spec, err)
	}
	return es, nil
}

// checkExpectPoints refuses, before anything runs, an expectation the
// study will have no point for: a phase it does not run or a thread
// count it does not visit would only fail after hours.
func checkExpectPoints(es []acceptance.Expectation, phases settings.PhaseList, threads []int) error {
	for _, e := range es {
		if !slices.Contains(phases, settings.Phase(e.Phase)) {
			return flagError("expect", e.Text, fmt.Errorf("the study runs no %s phase (--phases %s)", e.Phase, phases))
		}
		if !slices.Contains(threads, e.Threads) {
			return flagError("expect", e.Text, fmt.Errorf("the study has no point at %d threads (--threads %s)", e.Threads, study.FormatThreads(threads)))
		}
	}
	return nil
}

// judge prints the verdicts of the study against es and fails with
// acceptance.ErrNotMet when one is not met.
func judge(w io.Writer, s *study.Sweep, es []acceptance.Expectation) error {
	if len(es) == 0 {
		return nil
	}
	vs := acceptance.Judge(s, es)
	fmt.Fprintln(w)
	if err := acceptance.WriteTable(w, vs); err != nil {
		return err
	}
	if failed := acceptance.Failures(vs); failed > 0 {
		return fmt.Errorf("--expect: %w: %d of %d failed", acceptance.ErrNotMet, failed, len(vs))
	}
	return nil
}
