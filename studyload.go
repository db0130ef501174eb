package main

import (
	"slices"

	"ioswarm/internal/usage"
	"ioswarm/study"
)

// loadSections reads result files of any kind, each as its sections: a
// sweep or a single run is one, a study's file one per section that
// holds points (labelled "<study> <section>").
func loadSections(paths []string) ([][]*study.Sweep, error) {
	var out [][]*study.Sweep
	for _, p := range paths {
		st, err := study.LoadAny(p)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		if st.Plan == "" {
			out = append(out, st.Sections)
			continue
		}
		secs := st.Measured()
		if len(secs) == 0 {
			return nil, usage.Errorf("%s: the study has no finished point yet", p)
		}
		out = append(out, secs)
	}
	return out, nil
}

// isStudyFile says whether a file's sections came from a study.
func isStudyFile(secs []*study.Sweep) bool {
	return len(secs) != 1 || secs[0].Section != ""
}

// sectionPairs matches the sections of two files for a comparison: the
// same section of two studies; a sweep's single section with each
// section of the other that runs a phase it runs.
func sectionPairs(a, b []*study.Sweep) [][2]*study.Sweep {
	var out [][2]*study.Sweep
	for _, x := range a {
		for _, y := range b {
			if x.Section != "" && y.Section != "" {
				if x.Section == y.Section {
					out = append(out, [2]*study.Sweep{x, y})
				}
				continue
			}
			if sharePhase(x, y) {
				out = append(out, [2]*study.Sweep{x, y})
			}
		}
	}
	return out
}

func sharePhase(a, b *study.Sweep) bool {
	for _, p := range a.Phases() {
		if slices.Contains(b.Phases(), p) {
			return true
		}
	}
	return false
}
