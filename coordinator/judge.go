package coordinator

import (
	"ioswarm/result"
)

// judgeRead gives read phase p its cache verdict, node by node, from
// what the job knows before the phase runs: who touched the files each
// node is about to read, how its caches were dropped, its filesystem.
func (j *job) judgeRead(p *result.Phase) {
	c := readCase{direct: j.o.Direct, rotating: j.cold.rotating, exhausted: j.cold.exhausted,
		nodeLocal: j.cold.nodeLocal, clientCache: j.clientCache, serverCache: j.o.ServerCache, total: j.o.Total}
	p.CacheVerdicts = nil
	for _, n := range j.nodeReads(p) {
		p.CacheVerdicts = append(p.CacheVerdicts, nodeVerdict(c, n))
	}
	p.CacheVerdict, p.CacheReason = phaseVerdict(p.CacheVerdicts)
}

// verdictWarning words a maybe-cache verdict for the job's warnings, so
// that every printer (the run table's "!", ioswarm iozone's notes) shows
// it.
func verdictWarning(p *result.Phase) string {
	if !p.MaybeCache() {
		return ""
	}
	return p.Name + ": cache verdict maybe-cache: the figure " + p.CacheReason +
		"; reads stay cold on nodes that never touched the files (--read-shift auto with nodes to spare), with --direct, or at --total auto"
}

// demoteVerdict marks host's part of read phase p maybe-cache after the
// fact, when something measured during the phase shows a cache served it
// (a client cache's hit counters): the node's verdict takes reason and
// detail, the phase's verdict, its sentence and the sizing guard follow,
// and the warning joins the phase's and the job's. It reports whether
// host had a verdict in p.
func (j *job) demoteVerdict(p *result.Phase, host, reason, detail string) bool {
	found := false
	for i := range p.CacheVerdicts {
		if v := &p.CacheVerdicts[i]; v.Host == host {
			v.Verdict, v.Reason, v.Detail = result.VerdictMaybeCache, reason, detail
			found = true
		}
	}
	if !found {
		return false
	}
	p.CacheVerdict, p.CacheReason = phaseVerdict(p.CacheVerdicts)
	p.CacheGuard = cacheGuard(coldEverywhere(p.CacheVerdicts), j.clientCache, j.o.ServerCache, j.o.Total)
	w := verdictWarning(p)
	p.Warnings = append(p.Warnings, w)
	j.warn(w)
	return true
}
