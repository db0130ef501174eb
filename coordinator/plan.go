package coordinator

import (
	"context"
	"fmt"

	"ioswarm/internal/usage"
	"ioswarm/nodefacts"
	"ioswarm/resplan"
	"ioswarm/settings"
)

// planJob is what the resource plan needs to know of the job.
func (j *job) planJob() resplan.Job {
	o := j.o
	return resplan.Job{FileSize: o.FileSize, Block: o.Block, RandBlock: o.RandBlock, Phases: o.Phases,
		Engine: o.Engine, IODepth: o.IODepth, SharedFile: o.Layout == settings.Shared, ReadsOthers: j.shift != 0,
		Reuse: o.Reuse != "", FilesPerThread: o.FilesPerThread, MDSize: o.MDSize, MDShared: o.MDDir == settings.MDDirShared,
		RandTime: o.RandTime}
}

// planNodes are the job's ranks as the plan sees them.
func (j *job) planNodes(facts []nodefacts.Facts) []resplan.Node {
	nodes := make([]resplan.Node, len(j.s.targets))
	for r, t := range j.s.targets {
		nodes[r] = resplan.Node{Host: t.Host, Rank: r, Threads: len(j.threads[r]), Dir: j.dirOf(t), Facts: facts[r]}
	}
	return nodes
}

// checkPlan holds the job's memory and disk needs against what every node
// said it has, before a file is written anywhere, and sets each rank's
// memory cap (the rank's own guard, see resplan.Cap). A need not met is a
// usage error naming the node; --ignore-space and --ignore-memory let the
// job start anyway.
func (j *job) checkPlan(facts []nodefacts.Facts) error {
	pj := j.planJob()
	nodes := j.planNodes(facts)
	if err := resplan.Check(pj, nodes, resplan.Allow{Space: j.o.IgnoreSpace, Memory: j.o.IgnoreMemory}); err != nil {
		return usage.Wrap(err)
	}
	need := make([]int64, len(nodes))
	onKernel := map[string]int64{}
	for r, n := range nodes {
		if n.Threads > 0 {
			need[r] = resplan.RankMemory(pj, n.Threads).Total()
			onKernel[resplan.Kernel(n)] += need[r]
		}
	}
	j.memCaps = make([]int64, len(nodes))
	for r, n := range nodes {
		if n.Threads > 0 {
			j.memCaps[r] = resplan.Cap(need[r], onKernel[resplan.Kernel(n)], n.Facts.MemAvailable)
		}
	}
	return nil
}

// notePlan records each working rank's plan in its result.Host.
func (j *job) notePlan() {
	pj := j.planJob()
	for i := range j.res.Hosts {
		h := &j.res.Hosts[i]
		if h.Rank < 0 || h.Rank >= len(j.facts) {
			continue
		}
		f := j.facts[h.Rank]
		h.MemPlan = resplan.RankMemory(pj, h.Threads).Total()
		h.MemCap, h.MemAvailable = j.memCap(h.Rank), f.MemAvailable
		h.DiskPlan, h.FreeBytes = resplan.RankDisk(pj, h.Threads, f.BlockSize).Bytes, f.FreeBytes
	}
}

// memCap is rank r's memory cap for the job (0: none).
func (j *job) memCap(r int) int64 {
	if r < len(j.memCaps) {
		return j.memCaps[r]
	}
	return 0
}

// CheckPlan holds the resource plan of every workload against the
// session's nodes before any of them runs: a sweep checks all its points
// (its largest among them) up front, instead of failing hours in when it
// reaches one that cannot fit. (A --total auto point is sized, and its
// plan checked, when it runs.)
func (s *Session) CheckPlan(ctx context.Context, points []Workload, name func(Workload) string) error {
	var facts []nodefacts.Facts
	for _, w := range points {
		j, err := s.newJob(w)
		if err != nil {
			return err
		}
		if facts == nil {
			if facts, err = j.askFacts(ctx); err != nil {
				return err
			}
		}
		if err := j.checkPlan(facts); err != nil {
			return fmt.Errorf("%s: %w", name(w), err)
		}
	}
	return nil
}

// checkSeries checks the resource plan of each point of w's series (its
// PlanThreads, the same file size per thread) on the session's nodes,
// before w, the first, writes anything. The session has ranks for the
// largest point (see Run).
func (s *Session) checkSeries(ctx context.Context, w Workload) error {
	var points []Workload
	for _, n := range w.PlanThreads {
		if n == w.Threads || n <= 0 {
			continue // w's own plan is checked when it runs
		}
		p := w
		p.Threads, p.Total, p.PlanThreads = n, w.FileSize*int64(n), nil
		points = append(points, p)
	}
	if len(points) == 0 {
		return nil
	}
	return s.CheckPlan(ctx, points, func(p Workload) string { return fmt.Sprintf("the series' run of %d threads", p.Threads) })
}
