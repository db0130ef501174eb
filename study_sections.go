package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/studyplan"
	"ioswarm/sweep"
)

// sectionDefaults are what each kind of section runs unless its plan
// says otherwise: the seeds' characterisation.
var sectionDefaults = map[string][][2]string{
	"seq":      {{"phases", "write,read"}},
	"random":   {{"phases", "randwrite,randread"}},
	"shared":   {{"phases", "write,read"}, {"layout", "shared"}},
	"metadata": {{"phases", "mdcreate,mdstat,mdread,mddelete"}},
}

// notInPlan are run's flags a plan does not take: how the ranks start is
// the command line's (the nodes are checked on a rerun on their own),
// and a study writes its own files.
var notInPlan = map[string]string{
	"local-ranks":       "give it on the command line (--local-ranks)",
	"heartbeat-timeout": "give it on the command line (--heartbeat-timeout)",
	"reuse":             "a study writes its own files",
}

// planKeyCheck says whether a section of a plan may hold key.
func planKeyCheck(section, key string) error {
	if why, ok := notInPlan[key]; ok {
		return fmt.Errorf("not in a plan: %s", why)
	}
	if slices.Contains(flagNames(launchFlags(&launchOptions{})), key) {
		return fmt.Errorf("not in a plan: how the ranks start is the command line's (give --%s to ioswarm study)", key)
	}
	switch key {
	case "label":
		if section != studyplan.Study {
			return fmt.Errorf("only under [study]")
		}
		return nil
	case "threads", "iodepth":
		return nil
	case "phases", "layout":
		if section == studyplan.Study {
			return fmt.Errorf("each section has its own (seq: write,read; random: randwrite,randread; ...): set it in the section")
		}
	}
	if !slices.Contains(ioFlagNames(), key) {
		if best := closest(key, append(ioFlagNames(), "threads", "iodepth", "label")); best != "" {
			return fmt.Errorf("not a setting: did you mean %s?", best)
		}
		return fmt.Errorf("not a setting (keys are run's flags without --: dir, total, block, phases, rand-time, ...)")
	}
	return nil
}

// flagNamed is the flag an error about a workload flag begins with.
var flagNamed = regexp.MustCompile(`^--([a-z0-9-]+)\b`)

// entryOf is "file:line: " of the plan entry that set the flag err
// begins with (--total "5x": ...), where a line of the file did.
func entryOf(p *studyplan.Plan, s studyplan.Section, err error) string {
	m := flagNamed.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	for _, e := range p.Merged(s) {
		if e.Key == m[1] && e.Line > 0 && p.Source != "" {
			return p.Where(e) + ": "
		}
	}
	return ""
}

// planValueProblem is what a plan line's value for key should have been,
// as the command line says it, else the flag package's own error.
func planValueProblem(flags []cli.Flag, key, value string, err error) string {
	if why := valueProblem(flagOf(flags, key), key, value); why != "" {
		return why
	}
	return err.Error()
}

// ioFlagNames are the names of the workload flags.
func ioFlagNames() []string {
	var o ioOptions
	var names []string
	for _, f := range ioFlags(&o, true) {
		names = append(names, f.Names()[0])
	}
	return names
}

// sectionOptions are a section's workload flags as a command line with
// exactly its plan entries would set them: every flag's default, then
// the section's kind's defaults, then the plan's entries.
func sectionOptions(p *studyplan.Plan, s studyplan.Section) (ioOptions, given, []studyplan.Entry, error) {
	var o ioOptions
	fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := ioFlags(&o, true)
	for _, f := range flags {
		if err := f.Apply(fs); err != nil {
			return o, nil, nil, err
		}
	}
	g := given{}
	for _, kv := range sectionDefaults[s.Name] {
		if err := fs.Set(kv[0], kv[1]); err != nil {
			return o, nil, nil, err
		}
	}
	var rest []studyplan.Entry // threads, iodepth, label: not workload flags
	for _, e := range p.Merged(s) {
		if fs.Lookup(e.Key) == nil {
			rest = append(rest, e)
			continue
		}
		if err := fs.Set(e.Key, e.Value); err != nil {
			return o, nil, nil, usage.Errorf("%s: [%s] %s = %s: %s", p.Where(e), s.Name, e.Key, e.Value, planValueProblem(flags, e.Key, e.Value, err))
		}
		g[e.Key] = true
	}
	return o, g, rest, nil
}

// sectionPlan turns one section of the plan into a sweep plan on the
// study's launch; every point is validated by the caller.
func sectionPlan(p *studyplan.Plan, s studyplan.Section, launch coordinator.Launch, commandLine string) (sweep.Section, error) {
	o, g, rest, err := sectionOptions(p, s)
	if err != nil {
		return sweep.Section{}, err
	}
	var threads, depths []int
	label := ""
	for _, e := range rest {
		var list *[]int
		parse := study.ParseThreads
		switch e.Key {
		case "threads":
			list = &threads
		case "iodepth":
			list, parse = &depths, study.ParseDepths
		case "label":
			label = e.Value
			continue
		}
		if *list, err = parse(e.Value); err != nil {
			return sweep.Section{}, usage.Errorf("%s: [%s] %s = %s: %v", p.Where(e), s.Name, e.Key, e.Value, err)
		}
	}
	if depths == nil {
		depths = []int{1}
	}
	w, err := o.workload(g, 0, depths[0])
	if err != nil {
		return sweep.Section{}, fmt.Errorf("%s[%s] %w", entryOf(p, s, err), s.Name, err)
	}
	w.Label, w.CommandLine = label, commandLine
	if metadataOnly(w.Phases) && !g["total"] && !g["file-size"] {
		// Metadata phases write no data file: the default aggregate
		// would only mislabel the section.
		w.Total = 0
	}
	plan := sweep.Plan{Base: w, Launch: launch, Threads: threads, Section: s.Name}
	if len(depths) > 1 {
		plan.Depths = depths
	}
	return sweep.Section{Name: s.Name, Plan: plan, SettleTotal: w.TotalAuto}, nil
}

// sectionFlags are the flags that make a plan without a file: a thread
// list per section, and its own aggregate.
type sectionFlags struct {
	Seq, SeqTotal, Random, RandomTotal, Shared, SharedTotal, Metadata string
}

func (s *sectionFlags) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "seq", Destination: &s.Seq, Category: catIO, Usage: "section seq: sequential N-N write and read at these thread counts (1..512)"},
		&cli.StringFlag{Name: "seq-total", Destination: &s.SeqTotal, Category: catSizes, Usage: "section seq's aggregate, fixed over its points (auto: settled once on the nodes by the seed's rule)"},
		&cli.StringFlag{Name: "random", Destination: &s.Random, Category: catIO, Usage: "section random: random --rand-block read and write IOPS at these thread counts, each phase bounded by --rand-time"},
		&cli.StringFlag{Name: "random-total", Destination: &s.RandomTotal, Category: catSizes, Usage: "section random's aggregate, fixed over its points"},
		&cli.StringFlag{Name: "shared", Destination: &s.Shared, Category: catIO, Usage: "section shared: N-1 write and read of one shared file at these thread counts"},
		&cli.StringFlag{Name: "shared-total", Destination: &s.SharedTotal, Category: catSizes, Usage: "section shared's aggregate"},
		&cli.StringFlag{Name: "metadata", Destination: &s.Metadata, Category: catIO, Usage: "section metadata: create, stat, read and delete --files-per-thread files at these thread counts"},
	}
}

// sections adds the sections the flags name to p, in the order a
// characterisation runs them.
func (s *sectionFlags) sections(p *studyplan.Plan) {
	for _, sec := range []struct{ name, threads, total string }{
		{"seq", s.Seq, s.SeqTotal}, {"random", s.Random, s.RandomTotal},
		{"shared", s.Shared, s.SharedTotal}, {"metadata", s.Metadata, ""},
	} {
		if sec.threads == "" {
			continue
		}
		n := studyplan.Section{Name: sec.name}
		n.Set("threads", sec.threads)
		if sec.total != "" {
			n.Set("total", sec.total)
		}
		p.Sections = append(p.Sections, n)
	}
}

// any says whether a section flag was given.
func (s *sectionFlags) any() bool {
	return s.Seq != "" || s.Random != "" || s.Shared != "" || s.Metadata != "" ||
		s.SeqTotal != "" || s.RandomTotal != "" || s.SharedTotal != ""
}

// metadataOnly says whether every phase is a metadata phase.
func metadataOnly(phases settings.PhaseList) bool {
	for _, p := range phases {
		if !p.IsMeta() {
			return false
		}
	}
	return len(phases) > 0
}
