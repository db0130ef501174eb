package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/acceptance"
	"ioswarm/internal/usage"
	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/studyplan"
	"ioswarm/sweep"
	"ioswarm/units"
)

// studyOptions are study's flags and arguments.
type studyOptions struct {
	ioOptions
	reportOptions
	launchOptions
	invocation
	sectionFlags
	PlanFile string
	Expect   string
	// FullTable is --details: every column, not the compact table.
	FullTable bool
	durability
	retrying
	// values are the study-wide workload flags given on the command line,
	// as text, for the plan: they override its [study] entries.
	values map[string]string
}

func (o *studyOptions) flags() []cli.Flag {
	return concat([]cli.Flag{
		&cli.StringFlag{Name: "plan", Destination: &o.PlanFile, Category: catIO, Usage: "the study's plan `FILE`: [study] settings, then [seq], [random], [shared], [metadata] sections of key = value (keys: run's flags without --); see the README"},
	}, o.sectionFlags.flags(), studyIOFlags(&o.ioOptions), studyReportFlags(&o.reportOptions),
		launchFlags(&o.launchOptions), []cli.Flag{expectFlag(&o.Expect), tableDetailsFlag(&o.FullTable)},
		durabilityFlags(&o.durability), retryFlags(&o.retrying))
}

// studyIOFlags are the workload flags that apply to every section: not
// phases and layout, which each section has its own of, nor reuse.
func studyIOFlags(o *ioOptions) []cli.Flag {
	var out []cli.Flag
	for _, f := range ioFlags(o, true) {
		switch f.Names()[0] {
		case "phases", "layout", "reuse":
			// Not a flag of study's, but the launch's options are
			// validated like a run's: they hold the flag's default (each
			// section's workload has its own phases and layout).
			if sf, ok := f.(*cli.StringFlag); ok && sf.Destination != nil {
				*sf.Destination = sf.Value
			}
		default:
			out = append(out, f)
		}
	}
	return out
}

// studyReportFlags are the output flags a study takes: it prints a table
// per section and keeps everything in its --output file.
func studyReportFlags(o *reportOptions) []cli.Flag {
	var out []cli.Flag
	for _, f := range reportFlags(o) {
		switch f.Names()[0] {
		case "output", "label", "quiet", "progress", "progress-interval":
			out = append(out, f)
		}
	}
	return out
}

func studyCommand() *cli.Command {
	var o studyOptions
	return command(&cli.Command{
		Name:  "study",
		Usage: "run a whole characterisation (sequential, random, N-1, metadata sections) on one launch, resumable",
		Description: "Each section is a sweep over thread counts with its own fixed aggregate; the ranks start once\n" +
			"for the largest point of all, and every point of every section is checked before the first runs.\n" +
			"The study's file (--output, default: the plan's name with .json) is rewritten after every point;\n" +
			"running the same command again continues at the first missing point when plan, build and\n" +
			"nodes are the same. Sections come from --plan FILE or from --seq, --random, --shared and\n" +
			"--metadata; the workload flags given here apply to every section.",
		Flags: o.flags(),
	}, studyExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		o.HostsGiven = o.given["hosts"]
		o.values = map[string]string{}
		for _, name := range ioFlagNames() {
			if o.given[name] {
				o.values[name] = fmt.Sprint(c.Value(name))
			}
		}
		return runStudy(c.Context, o)
	})
}

const studyExamples = `   ioswarm study --plan gpfs.plan --hosts 'node[01-16]'            # results in gpfs.json
   ioswarm study --seq 1..512 --seq-total auto --random 1..256 --random-total 1TiB --rand-time 2m \
       --dir /gpfs/scratch --hosts nodes.txt --output gpfs.json
   ioswarm study --plan gpfs.plan --hosts 'node[01-16]'            # again: continues where it stopped
   ioswarm report gpfs.json                                         # the HTML report of every section`

// runStudy is `ioswarm study`.
func runStudy(ctx context.Context, o studyOptions) error {
	if err := noArgs("study", o.args); err != nil {
		return err
	}
	expect, err := parseExpect(o.Expect)
	if err != nil {
		return err
	}
	plan, err := studyPlanOf(o)
	if err != nil {
		return err
	}
	sp, spec, err := studyRunPlan(o, plan, expect)
	if err != nil {
		return err
	}
	out, err := studyOutputReady(ctx, o, plan, &sp)
	if err != nil {
		return err
	}
	pr := newStudyPrinter(o.stdout, o.stderr, &sp, spec.rep.progress)
	pr.fullTable = o.FullTable
	sp.Settled = func(section string, total int64) {
		fmt.Fprintf(o.stderr, "[%s] --total auto: %s (twice what the nodes' and servers' caches hold, in whole records at every thread count), fixed for every point; %s\n",
			section, units.FormatSize(total), pr.left().text())
	}
	sp.Checkpoint = func(st *study.Study) error {
		return writeFileAtomic("output", out, func(w io.Writer) error { return study.WriteStudyJSON(w, st) })
	}
	fmt.Fprintf(o.stderr, "study: %d section(s) (%s) into %s; %s\n", len(sp.Sections), sectionNames(sp.Sections), out, pr.left().text())
	runErr := sweep.RunStudy(ctx, sp)
	pr.footers()
	if runErr != nil {
		return runErr
	}
	return judge(o.stdout, sp.Study.Flatten(), expect)
}

// studyPlanOf is the plan of the flags: --plan's file or the section
// flags, with the study-wide workload flags given over its [study].
func studyPlanOf(o studyOptions) (*studyplan.Plan, error) {
	var plan *studyplan.Plan
	switch {
	case o.PlanFile != "" && o.sectionFlags.any():
		return nil, usage.Errorf("study: sections come from --plan %s or from --seq/--random/--shared/--metadata, not both", o.PlanFile)
	case o.PlanFile != "":
		p, err := studyplan.Load(o.PlanFile)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		plan = p
	case o.sectionFlags.any():
		plan = &studyplan.Plan{Shared: studyplan.Section{Name: studyplan.Study}}
		o.sectionFlags.sections(plan)
	case o.Resume != "":
		// The saved study holds its plan: --resume FILE alone continues it.
		saved, err := study.LoadStudy(o.Resume)
		if err != nil {
			return nil, usage.Wrap(fmt.Errorf("--resume: %w", err))
		}
		p, err := studyplan.Parse(strings.NewReader(saved.Plan), o.Resume+" (its plan)")
		if err != nil {
			return nil, usage.Wrap(fmt.Errorf("--resume: %w", err))
		}
		plan = p
	default:
		return nil, usage.Errorf("study: nothing to run: give --plan FILE, or sections such as --seq 1..64 --random 1..64")
	}
	for _, name := range ioFlagNames() {
		if v, ok := o.values[name]; ok && notInPlan[name] == "" {
			plan.Shared.Set(name, v)
		}
	}
	if err := plan.Check(planKeyCheck); err != nil {
		return nil, usage.Wrap(err)
	}
	for _, s := range plan.Sections {
		if _, ok := s.Get("threads"); !ok {
			return nil, usage.Errorf("study: [%s] has no threads", s.Name)
		}
	}
	if len(plan.Sections) == 0 {
		return nil, usage.Errorf("study: no section to run")
	}
	return plan, nil
}

// checkStudyExpect refuses, before anything runs, an expectation no
// section can judge: none runs that phase at that thread count.
func checkStudyExpect(es []acceptance.Expectation, secs []sweep.Section) error {
	for _, e := range es {
		var phases settings.PhaseList
		var threads []int
		found := false
		for _, s := range secs {
			phases = append(phases, s.Plan.Base.Phases...)
			threads = append(threads, s.Plan.Threads...)
			found = found || checkExpectPoints([]acceptance.Expectation{e}, s.Plan.Base.Phases, s.Plan.Threads) == nil
		}
		if found {
			continue
		}
		if err := checkExpectPoints([]acceptance.Expectation{e}, phases, threads); err != nil {
			return err
		}
		return flagError("expect", e.Text, fmt.Errorf("no section runs %s at %d threads", e.Phase, e.Threads))
	}
	return nil
}

func sectionNames(secs []sweep.Section) string {
	var names []string
	for _, s := range secs {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}
