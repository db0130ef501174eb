package main

import (
	"fmt"
	"io"
	"time"

	"ioswarm/coordinator"
	"ioswarm/progress"
	"ioswarm/result"
	"ioswarm/study"
	"ioswarm/sweep"
)

// studyPrinter prints a study as it runs: a table per section, headed by
// the section's name, and after every point the estimate of what is left.
type studyPrinter struct {
	stdout, stderr io.Writer
	secs           []sweep.Section // shared with the running study: totals settle in place
	st             *study.Study
	tables         []*sweepPrinter
	done           [][]*result.Job // each section's finished points, kept ones included
	current        int             // the section printing now; -1 before the first
	progress       *progress.Reporter
	footed         bool // a section's footer has been printed
	fullTable      bool // every column (--details), not the compact table
}

func newStudyPrinter(stdout, stderr io.Writer, sp *sweep.StudyPlan, rep *progress.Reporter) *studyPrinter {
	pr := &studyPrinter{stdout: stdout, stderr: stderr, secs: sp.Sections, st: sp.Study, current: -1, progress: rep,
		tables: make([]*sweepPrinter, len(sp.Sections)), done: make([][]*result.Job, len(sp.Sections))}
	for i, s := range sp.Sections {
		pr.done[i] = append(pr.done[i], s.Plan.Kept...)
		i := i
		sp.Sections[i].Plan.Before = func(o coordinator.Workload) { pr.before(i, o) }
		sp.Sections[i].Plan.After = func(job *result.Job) error { return pr.after(i, job) }
		sp.Sections[i].Plan.NextEstimate = func(o coordinator.Workload) time.Duration { return pr.nextEstimate(o) }
	}
	return pr
}

// left is the study's estimate now.
func (pr *studyPrinter) left() studyLeft {
	return estimateStudy(pr.secs, pr.done)
}

// before heads a new section and names the point on the progress line.
func (pr *studyPrinter) before(i int, o coordinator.Workload) {
	if i != pr.current {
		pr.footer()
		pr.current = i
		sw := pr.secs[i].Plan.NewSweep()
		fmt.Fprintf(pr.stdout, "\n[%s] %s\n", pr.secs[i].Name, sw.Describe())
		pr.tables[i] = newSweepPrinter(pr.stdout, "table", sw, "", pr.progress)
		pr.tables[i].fullTable = pr.fullTable
	}
	pr.tables[i].before(o)
	if r := pr.progress; r != nil {
		r.SetPrefix(fmt.Sprintf("[%s %d threads]", pr.secs[i].Name, o.Threads))
	}
}

// after prints the point's row, then what is left of the study.
func (pr *studyPrinter) after(i int, job *result.Job) error {
	err := pr.tables[i].after(job)
	if job.Complete {
		pr.done[i] = append(pr.done[i], job)
		fmt.Fprintf(pr.stderr, "study: %s\n", pr.left().text())
	}
	return err
}

// nextEstimate is how long a section's first point may take, from its
// sizes and the rate measured so far (0: cannot tell, so it is started).
func (pr *studyPrinter) nextEstimate(o coordinator.Workload) time.Duration {
	known, _, open := pointEstimate(o, seqRate(pr.done))
	if open {
		return 0
	}
	return known * 5 / 4
}

// footer closes the section printing now with its table's footer.
func (pr *studyPrinter) footer() {
	if pr.current < 0 || pr.tables[pr.current] == nil || pr.tables[pr.current].table == nil {
		return
	}
	sw := pr.secs[pr.current].Plan.NewSweep()
	sw.Points = pr.done[pr.current]
	if !pr.footed {
		// The ranks started once, before the first section printed.
		sw.LaunchNS = pr.st.LaunchNS
	}
	pr.footed = true
	pr.tables[pr.current].table.Footer(sw)
}

// footers closes the last section once the study has stopped.
func (pr *studyPrinter) footers() {
	pr.footer()
	pr.current = -1
}
