package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"ioswarm/acceptance"
	"ioswarm/internal/usage"
	"ioswarm/study"
	"ioswarm/studyplan"
	"ioswarm/sweep"
	"ioswarm/units"
)

// studyRunPlan is the study's launch and sections, every point validated
// and retried as the flags say, and the expectations checked against
// them; and the job the flags describe.
func studyRunPlan(o studyOptions, plan *studyplan.Plan, expect []acceptance.Expectation) (sweep.StudyPlan, jobSpec, error) {
	spec, err := jobFrom(&o.ioOptions, &o.reportOptions, &o.launchOptions, o.given, 0, 1, o.stderr)
	if err != nil {
		return sweep.StudyPlan{}, spec, err
	}
	sp := sweep.StudyPlan{Launch: spec.launch,
		Study: &study.Study{Version: fullVersion(), Kind: study.StudyKind, Plan: plan.Canonical(), CommandLine: o.commandLine}}
	if sp.Sections, sp.Study.Label, err = studySections(o, plan, spec); err != nil {
		return sp, spec, err
	}
	for i := range sp.Sections {
		if err := o.retrying.apply(&sp.Sections[i].Plan, &o.launchOptions, o.stderr); err != nil {
			return sp, spec, err
		}
	}
	return sp, spec, checkStudyExpect(expect, sp.Sections)
}

// studyOutputReady is the study's file, resumed when it holds points of
// this study, and checked writable before any rank starts; it also sets
// the study's deadline.
func studyOutputReady(ctx context.Context, o studyOptions, plan *studyplan.Plan, sp *sweep.StudyPlan) (string, error) {
	out := studyOutput(o, plan)
	if out == "" {
		return "", usage.Errorf("study: --output FILE: a study keeps its points in a file (or give --plan, whose name it takes)")
	}
	resumed, err := resumeStudy(o.stderr, sp, out, o.Resume, o.ResumeAnyway)
	if err != nil {
		return "", err
	}
	// A resumed study's file is rewritten, not replaced: no note, but it
	// must still be writable before any rank starts.
	if err := checkOutputs(o.stderr, outputPath{"output", out, !resumed}); err != nil {
		return "", err
	}
	if sp.Deadline, err = studyDeadline(ctx, o); err != nil {
		return "", err
	}
	return out, nil
}

// studySections are the plan's sections as sweeps on the study's launch,
// every point validated, and the study's label.
func studySections(o studyOptions, plan *studyplan.Plan, spec jobSpec) ([]sweep.Section, string, error) {
	var out []sweep.Section
	label := ""
	for _, s := range plan.Sections {
		sec, err := sectionPlan(plan, s, spec.launch, o.commandLine)
		if err != nil {
			return nil, "", err
		}
		if spec.rep.progress != nil {
			sec.Plan.Base.Progress = spec.rep.progress
		}
		if sec.Plan.Base.Label == "" {
			sec.Plan.Base.Label = o.Label
		}
		if _, err := sweep.Points(sec.Plan.Base, sec.Plan.Launch, sec.Plan.Threads, sec.Plan.Depths); err != nil {
			return nil, "", fmt.Errorf("[%s] %w", s.Name, err)
		}
		label = sec.Plan.Base.Label
		out = append(out, sec)
	}
	return out, label, nil
}

// studyDeadline is when the study must be done (zero: never), said on
// stderr.
func studyDeadline(ctx context.Context, o studyOptions) (time.Time, error) {
	deadline, from, err := sweepDeadline(ctx, o.TimeBudget, time.Now())
	if err != nil || deadline.IsZero() {
		return deadline, err
	}
	fmt.Fprintf(o.stderr, "time budget: %s left (%s); a point that would not end by then is not started\n",
		units.FormatDuration(int64(time.Until(deadline))), from)
	return deadline, nil
}

// studyOutput is the study's file: --resume's, --output, or the plan
// file's name with .json.
func studyOutput(o studyOptions, plan *studyplan.Plan) string {
	switch {
	case o.Output != "":
		return o.Output
	case o.Resume != "":
		return o.Resume
	case o.PlanFile != "":
		return strings.TrimSuffix(o.PlanFile, filepath.Ext(o.PlanFile)) + ".json"
	}
	return ""
}
