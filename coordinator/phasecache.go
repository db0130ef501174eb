package coordinator

import (
	"context"
	"fmt"

	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/wire"
)

// dropCaches drops caches on every node and records the weakest method any
// node used: a phase is only as cold as its warmest node.
func (j *job) dropCaches(ctx context.Context, p *result.Phase) error {
	drops, err := callAll[wire.DropReply](ctx, j.s.coord, wire.KindDrop, "drop", same(wire.Drop{Phase: wire.Phase(p.Name)}))
	if err != nil {
		return fmt.Errorf("drop caches: %w", err)
	}
	var method settings.DropMethod
	j.cold.dropBy = make([]settings.DropMethod, len(drops))
	for r, d := range drops {
		j.cold.dropBy[r] = d.Method
		if d.Warning != "" && !j.warned(d.Warning) {
			j.warn(fmt.Sprintf("host %s: %s", j.s.targets[r].Host, d.Warning))
		}
		if method == "" {
			method = d.Method
		}
		method = settings.Weaker(method, d.Method)
	}
	p.CacheDrop = method
	return nil
}

func (j *job) warned(msg string) bool {
	for _, w := range j.res.Warnings {
		if len(w) >= len(msg) && w[len(w)-len(msg):] == msg {
			return true
		}
	}
	return false
}

// resident records the fraction of the job's file pages still in the page
// cache as the phase starts: the figure that says whether a read phase
// measured the filesystem or memory.
func (j *job) resident(ctx context.Context, p *result.Phase) error {
	replies, err := callAll[wire.ResidentReply](ctx, j.s.coord, wire.KindResident, "residency", same(wire.Resident{Phase: wire.Phase(p.Name)}))
	if err != nil {
		return fmt.Errorf("page-cache residency: %w", err)
	}
	var res, tot int64
	byHost := map[string][2]int64{}
	var order []string
	for r, rr := range replies {
		res += rr.Resident
		tot += rr.Total
		if len(j.threads[r]) == 0 {
			continue
		}
		h := j.s.targets[r].Host
		if _, ok := byHost[h]; !ok {
			order = append(order, h)
		}
		byHost[h] = [2]int64{byHost[h][0] + rr.Resident, byHost[h][1] + rr.Total}
	}
	if tot > 0 {
		p.ResidentFraction = float64(res) / float64(tot)
	}
	for _, h := range order {
		hr := result.HostResidency{Host: h, Pages: byHost[h][1]}
		if c := byHost[h]; c[1] > 0 {
			hr.ResidentFraction = float64(c[0]) / float64(c[1])
		}
		p.ResidentByHost = append(p.ResidentByHost, hr)
	}
	return nil
}

// readWarnings checks the seed's sizing rule and the residency of a read
// phase before it runs, and records what a reader of its figure must know.
func (j *job) readWarnings(p *result.Phase) {
	j.judgeRead(p)
	p.CacheGuard = cacheGuard(coldEverywhere(p.CacheVerdicts), j.clientCache, j.o.ServerCache, j.o.Total)
	if p.CacheGuard.Warned {
		p.Warnings = append(p.Warnings, guardWarning(p.Name, p.CacheGuard, j.kernels, p.CacheDrop))
	}
	shift := 0
	if p.ReadShift != nil {
		shift = *p.ReadShift
	}
	p.Warnings = append(p.Warnings, residencyWarnings(p, j.o.DropCaches, j.o.Direct, shift)...)
	if w := verdictWarning(p); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	for _, w := range p.Warnings {
		if !j.warned(w) {
			j.warn(w)
		}
	}
}
