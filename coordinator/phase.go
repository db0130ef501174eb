package coordinator

import (
	"context"
	"fmt"
	"time"

	"ioswarm/barrier"
	"ioswarm/clock"
	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/wire"
)

// phase runs one timed phase on every rank and reduces it: its untimed
// preparation, the release time, the timed run, then the records.
func (j *job) phase(ctx context.Context, ph settings.Phase, iter int) (result.Phase, error) {
	p := result.Phase{Name: ph.String(), Iteration: iter}
	if err := j.preparePhase(ctx, ph, &p); err != nil {
		return p, err
	}
	rel, err := j.planRelease(ctx, &p)
	if err != nil {
		return p, err
	}
	if j.o.Progress != nil {
		// End comes after the phase's last warning, as it always has.
		defer j.followProgress(ph, iter, rel.at)()
	}
	replies, err := callAll[wire.RunReply](ctx, j.s.coord, wire.KindRun, "run", func(r int) any {
		return wire.Run{Phase: ph, Iteration: iter, ReleaseAt: rel.members[r].ToRank(rel.at),
			StonewallNS: int64(j.stonewall(ph)), FirstDoneStop: j.o.FirstDoneStop && !ph.IsMeta()}
	})
	if err != nil {
		return p, err
	}
	if err := j.finishPhase(ctx, ph, &p, replies, rel); err != nil {
		return p, err
	}
	return p, nil
}

// preparePhase readies the files untimed (a write finds its files gone,
// any other phase finds them full; a shared file is made first, by rank 0
// alone), drops the caches and measures what stayed resident.
func (j *job) preparePhase(ctx context.Context, ph settings.Phase, p *result.Phase) error {
	if j.o.Layout == settings.Shared && !ph.IsMeta() {
		if _, err := j.s.coord.Call(ctx, wire.KindShared, func(r int) any {
			return wire.MakeShared{Phase: ph, Make: r == 0}
		}); err != nil {
			return fmt.Errorf("making the shared file: %w", err)
		}
	}
	sources := j.placeReads(p)
	if _, err := j.s.coord.Call(ctx, wire.KindPrepare, func(r int) any {
		return wire.Prepare{Phase: ph, Sources: sources(r)}
	}); err != nil {
		return fmt.Errorf("preparing files: %w", err)
	}
	if err := j.dropCaches(ctx, p); err != nil {
		return err
	}
	if err := j.resident(ctx, p); err != nil {
		return err
	}
	if ph.IsRead() {
		j.readWarnings(p)
	}
	return nil
}

// releasePlan is when a phase's threads start, on the coordinator's clock,
// and what it was computed from.
type releasePlan struct {
	members []barrier.MemberInfo // the clock probe the release was converted with
	maxErr  int64                // the largest clock error of a working rank
	sent    int64                // when the run requests went out
	at      int64                // the release moment
	perRank int                  // the most threads a rank runs
}

// planRelease probes the clocks afresh (clocks drift, and a phase's
// records are converted with the estimate taken just before it) and sets
// the release far enough ahead for the slowest rank and the clock error.
// Ranks with no thread in this job (a sweep's smaller points) have no
// records and need no release: probing them cost a 200-node sweep on the
// test bed ~0.13 s a phase at every point.
func (j *job) planRelease(ctx context.Context, p *result.Phase) (releasePlan, error) {
	working := func(r int) bool { return len(j.threads[r]) > 0 }
	members, err := j.s.coord.ProbeClocks(ctx, working)
	if err != nil {
		return releasePlan{}, fmt.Errorf("clock probe: %w", err)
	}
	j.members = members
	rel := releasePlan{members: members, perRank: j.threadsPerRank()}
	for r, m := range members {
		if working(r) {
			rel.maxErr = max(rel.maxErr, m.ClockError)
		}
	}
	rel.sent = clock.Now()
	rel.at = rel.sent + int64(j.s.ready.lead(rel.perRank)) + 4*rel.maxErr
	j.release = rel.at
	p.ReleaseLeadNS = rel.at - rel.sent
	return rel, nil
}

// followProgress shows the phase's progress from the ranks' notes and
// returns what ends it: End comes after the last Update.
func (j *job) followProgress(ph settings.Phase, iter int, release int64) (end func()) {
	j.o.Progress.Start(ph.String(), iter, j.o.Total, j.stonewall(ph))
	stop, followed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(followed)
		follow(j.s.coord.Notes(), j.o.Progress, ph, release, stop)
	}()
	return func() { close(stop); <-followed; j.o.Progress.End() }
}

// finishPhase turns the ranks' run replies into the phase's records and
// figures, and warns of what makes them doubtful.
func (j *job) finishPhase(ctx context.Context, ph settings.Phase, p *result.Phase, replies []wire.RunReply, rel releasePlan) error {
	if err := j.collect(ctx, p, replies); err != nil {
		return err
	}
	late := j.noteReadiness(p, replies, rel.sent, rel.perRank)
	j.clientCacheUse(p, replies)
	p.FirstDoneNote = figures.FirstDoneNote(p.Name, j.o.WritesCallByCall(), j.o.Fsync)
	if err := figures.Reduce(p); err != nil {
		return fmt.Errorf("reduce: %w", err)
	}
	if err := j.series(ctx, p); err != nil {
		return err
	}
	for _, w := range []string{lateWarning(p, late), skewWarning(p, rel.maxErr)} {
		if w != "" {
			p.Warnings = append(p.Warnings, w)
			j.warn(w)
		}
	}
	p.TimedBytes = p.Bytes
	if j.o.Engine == settings.IOUring {
		p.IODepth = j.o.IODepth
		figures.ReduceDepth(p)
	}
	p.Verified = j.o.Verify && ph.IsRead()
	j.noteTouches(ph)
	return nil
}

// noteReadiness sets the phase's release margin from the moments the ranks'
// threads were all waiting (on the coordinator's clock), keeps how long
// the slowest rank took from the run request sent at sent for the next
// phase's lead, and returns that rank's host.
func (j *job) noteReadiness(p *result.Phase, replies []wire.RunReply, sent int64, perRank int) (host string) {
	var last int64
	for r, rep := range replies {
		if rep.ReadyAt == 0 {
			continue // a rank with no threads
		}
		if at := j.members[r].FromRank(rep.ReadyAt); host == "" || at > last {
			last, host = at, j.s.targets[r].Host
		}
	}
	if host == "" {
		return ""
	}
	p.ReleaseMarginNS = j.release - last
	j.s.ready = j.s.ready.next(time.Duration(max(last-sent, 0)), perRank)
	return host
}

// threadsPerRank is the most threads any rank runs.
func (j *job) threadsPerRank() int {
	n := 0
	for _, t := range j.threads {
		n = max(n, len(t))
	}
	return n
}

// wholeFile says whether phase draws offsets over all of a shared file.
func (j *job) wholeFile(phase wire.Phase) bool {
	return j.o.Layout == settings.Shared && j.o.RandScope == settings.ScopeFile && phase.IsRandom()
}

// hostOfThread is the host a thread runs on. (A lookup in the placement:
// it is asked for every thread of every phase, where a search through
// the ranks' thread lists cost threads² a phase.)
func (j *job) hostOfThread(t int) string {
	if t < 0 || t >= len(j.threadHost) {
		return ""
	}
	return j.threadHost[t]
}

// stonewall is the phase's time limit: --stonewall, and for random
// phases --rand-time when that is shorter.
func (j *job) stonewall(ph wire.Phase) time.Duration {
	sw := j.o.Stonewall
	if ph.IsRandom() && j.o.RandTime > 0 && (sw == 0 || j.o.RandTime < sw) {
		sw = j.o.RandTime
	}
	return sw
}
