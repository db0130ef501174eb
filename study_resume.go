package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"ioswarm/internal/usage"
	"ioswarm/study"
	"ioswarm/studyplan"
	"ioswarm/sweep"
)

// resumeStudy continues the study saved in --resume's file, or in the
// output when it already holds one (running the same command again):
// the plan must be the same, and the build and nodes unless anyway. Each
// section keeps its finished points, and a --total auto section the
// aggregate it settled on. It says whether a saved study was taken up.
func resumeStudy(stderr io.Writer, sp *sweep.StudyPlan, out, resume string, anyway bool) (bool, error) {
	if anyway && resume == "" {
		return false, usage.Errorf("--resume-anyway goes with --resume FILE")
	}
	path := resume
	if path == "" {
		path = out
		if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
	}
	saved, err := study.LoadAny(path)
	if err != nil || saved.Plan == "" {
		if resume == "" {
			// Not a study's file: the output check says it is replaced.
			return false, nil
		}
		if err == nil {
			err = fmt.Errorf("%s: not a study's result file (a sweep or a single run)", path)
		}
		return false, usage.Wrap(fmt.Errorf("--resume: %w", err))
	}
	if finishedPoints(saved) == 0 {
		fmt.Fprintf(stderr, "note: %s holds no finished point of a study; it starts afresh\n", path)
		return false, nil
	}
	if diffs := studyplan.Diff(saved.Plan, sp.Study.Plan); len(diffs) > 0 {
		return false, usage.Errorf("%s: the saved study was another plan: %s (run the plan it holds to continue it, or give another --output for a new study)",
			path, strings.Join(diffs, "; "))
	}
	kept := 0
	for i := range sp.Sections {
		sec := &sp.Sections[i]
		old := savedSection(saved, sec.Name)
		if old == nil {
			continue
		}
		old.Source = path
		if sec.SettleTotal && old.Setup.Sizing == study.SizingTotal && old.Setup.Total > 0 {
			// The aggregate is the one the study settled on: the same at
			// every point, whatever the nodes hold now.
			sec.Plan.Base.Total, sec.Plan.Base.TotalAuto, sec.SettleTotal = old.Setup.Total, false, false
		}
		points, err := sweep.Resume(sec.Plan, sweep.Resumed{Saved: old, Version: sec.Plan.Base.Version,
			Hosts: launchHosts(sp.Launch), Anyway: anyway})
		if err != nil {
			return false, fmt.Errorf("[%s] %w", sec.Name, err)
		}
		sec.Plan.Kept = points
		kept += len(points)
	}
	fmt.Fprintf(stderr, "resuming %s: %d finished point(s) kept, the rest run\n", path, kept)
	return true, nil
}

func savedSection(s *study.Study, name string) *study.Sweep {
	for _, sec := range s.Sections {
		if sec.Section == name {
			return sec
		}
	}
	return nil
}

func finishedPoints(s *study.Study) int {
	n := 0
	for _, sec := range s.Sections {
		for _, p := range sec.Points {
			if p.Complete {
				n++
			}
		}
	}
	return n
}
