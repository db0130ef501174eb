package sweep

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ioswarm/coordinator"
	"ioswarm/result"
	"ioswarm/study"
)

// Section is one part of a study: a sweep with its name.
type Section struct {
	Name string
	Plan Plan
	// SettleTotal: the section's aggregate is --total auto, settled once
	// on the nodes when the ranks start and then fixed for every point
	// (a resumed study gives the saved total instead).
	SettleTotal bool
}

// StudyPlan is a whole study: its sections run in order on one launch.
type StudyPlan struct {
	Study    *study.Study // what the file says besides the sections (plan, label, version)
	Sections []Section
	Launch   coordinator.Launch
	Deadline time.Time
	// Settled, when set, is told each total --total auto settled on.
	Settled func(section string, total int64)
	// Checkpoint, when set, is called with the study after every point,
	// so its file loses at most the point
	// in flight; an error stops the study.
	Checkpoint func(st *study.Study) error
}

// RunStudy runs every section's missing points on one launch of the
// ranks: every point of every section is checked (sizes, then memory
// and disk on the nodes) before the first writes anything. It fills
// sp.Study's sections as it goes and returns the error that stopped it,
// the study saved by the last checkpoint either way.
func RunStudy(ctx context.Context, sp StudyPlan) error {
	st := sp.Study
	st.Sections = make([]*study.Sweep, len(sp.Sections))
	var todo []coordinator.Workload
	first := -1
	for i := range sp.Sections {
		sec := &sp.Sections[i]
		sec.Plan.Section, sec.Plan.Deadline = sec.Name, sp.Deadline
		st.Sections[i] = sec.Plan.NewSweep()
		// A section not reached yet holds [] (not null) in the file.
		st.Sections[i].Points = append([]*result.Job{}, sec.Plan.Kept...)
		left, err := missing(sec.Plan)
		if err != nil {
			return fmt.Errorf("[%s] %w", sec.Name, err)
		}
		if len(left) > 0 && first < 0 {
			first = i
		}
		todo = append(todo, left...)
	}
	if first < 0 {
		return finishStudy(st, nil, sp)
	}
	p0 := sp.Sections[first].Plan
	left0, _ := missing(p0)
	if err := checkBudget(sp.Deadline, time.Now(), p0.nextEstimate(p0.Kept, left0[0]), fmt.Sprintf("[%s] %s", sp.Sections[first].Name, pointText(left0[0], len(p0.Depths) > 1))); err != nil {
		return finishStudy(st, err, sp)
	}
	launch := sp.Launch
	for _, o := range todo {
		launch.Threads = max(launch.Threads, o.Threads)
	}
	begin := time.Now()
	sess, err := coordinator.Start(ctx, launch)
	if err != nil {
		return err
	}
	if err := prepareSections(ctx, sess, &sp); err != nil {
		// Nothing ran: the file, if any, stays as it was.
		sess.Close(err)
		return err
	}
	st.LaunchNS = int64(time.Since(begin))
	// One set of ranks for every section; a failed point's retry starts
	// fresh ones, which the sections after it go on with.
	r := &ranks{launch: launch, sess: sess}
	err = runSections(ctx, r, &sp)
	r.drop(err)
	st.LaunchNS += r.relaunchNS
	return finishStudy(st, err, sp)
}

// missing are the validated points of a section not among its kept ones.
func missing(p Plan) ([]coordinator.Workload, error) {
	all, err := Points(p.Base, p.Launch, p.Threads, p.Depths)
	if err != nil {
		return nil, err
	}
	var out []coordinator.Workload
	for _, o := range all {
		if !done(p.Kept, o.Threads, o.IODepth, len(p.Depths) > 0) {
			out = append(out, o)
		}
	}
	return out, nil
}

// prepareSections settles each --total auto on the nodes, then checks
// the resource plan of every missing point of every section (a section
// at a time, so that a point that cannot fit is named by its section).
func prepareSections(ctx context.Context, sess *coordinator.Session, sp *StudyPlan) error {
	for i := range sp.Sections {
		sec := &sp.Sections[i]
		if sec.SettleTotal {
			total, err := sess.SettleTotal(ctx, sec.Plan.Base, sec.Plan.Threads)
			if err != nil {
				return fmt.Errorf("[%s] %w", sec.Name, err)
			}
			sec.Plan.Base.Total, sec.Plan.Base.TotalAuto, sec.Plan.Base.FileSize = total, false, 0
			sec.SettleTotal = false
			sp.Study.Sections[i] = sec.Plan.NewSweep()
			sp.Study.Sections[i].Points = append([]*result.Job{}, sec.Plan.Kept...)
			if sp.Settled != nil {
				sp.Settled(sec.Name, total)
			}
		}
		left, err := missing(sec.Plan)
		if err != nil {
			return fmt.Errorf("[%s] %w", sec.Name, err)
		}
		depths := len(sec.Plan.Depths) > 1
		name := func(o coordinator.Workload) string {
			return fmt.Sprintf("[%s] sweep point of %s", sec.Name, pointText(o, depths))
		}
		if err := sess.CheckPlan(ctx, left, name); err != nil {
			return err
		}
	}
	return nil
}

// runSections runs the sections in order on the ranks, each point
// checkpointing the whole study. A section whose failed points were kept
// (KeepGoing) does not stop the next; the study then ends with
// ErrPointsFailed naming them.
func runSections(ctx context.Context, r *ranks, sp *StudyPlan) error {
	var failed []error
	for i := range sp.Sections {
		p := sp.Sections[i].Plan
		if sp.Checkpoint != nil {
			p.Checkpoint = func(sw *study.Sweep) error {
				sp.Study.Sections[i] = sw
				return sp.Checkpoint(sp.Study)
			}
		}
		r.plan = p
		sw := sp.Study.Sections[i]
		err := runSection(ctx, r, p, sw)
		if err != nil && errors.Is(err, ErrPointsFailed) {
			failed = append(failed, fmt.Errorf("[%s] %w", sp.Sections[i].Name, err))
		} else if err != nil {
			return fmt.Errorf("[%s] %w", sp.Sections[i].Name, err)
		}
		// The section's file now says whether it is complete.
		if sp.Checkpoint != nil {
			if err := sp.Checkpoint(sp.Study); err != nil {
				return err
			}
		}
	}
	return errors.Join(failed...)
}

// runSection runs a section's missing points on the ranks, into sw (its
// kept points already in it), as Run does on ranks of its own.
func runSection(ctx context.Context, r *ranks, p Plan, sw *study.Sweep) error {
	points, err := missing(p)
	if err != nil {
		return err
	}
	runErr := runPoints(ctx, r, p, points, sw)
	sw.Complete = runErr == nil
	sw.Error = ""
	if runErr != nil {
		sw.Error = runErr.Error()
	}
	return runErr
}

// finishStudy marks the study complete or records why it stopped, and
// saves it once more.
func finishStudy(st *study.Study, runErr error, sp StudyPlan) error {
	st.Complete = runErr == nil
	st.Error = ""
	if runErr != nil {
		st.Error = runErr.Error()
	}
	if sp.Checkpoint != nil {
		if err := sp.Checkpoint(st); err != nil && runErr == nil {
			return err
		}
	}
	return runErr
}
