package coordinator

import (
	"fmt"
	"time"

	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/units"
)

// residentLimit is the fraction of a read phase's pages that may be in a
// node's page cache as the phase starts before its figure is called a
// possible cache figure.
const residentLimit = 0.05

// clientCache is what the caches of the nodes running this job's threads
// hold between them (each kernel once), with the number of kernels.
func (j *job) sumClientCache(facts []nodefacts.Facts) (int64, int) {
	var fs []nodefacts.Facts
	for _, r := range j.working() {
		fs = append(fs, facts[r])
	}
	return nodefacts.ClientCache(fs)
}

// autoTotal is the smallest aggregate that meets the seed's rule (at least
// twice what the clients and the servers can cache) and divides into the
// job's threads × whole records of both sizes.
func autoTotal(clientCache, serverCache int64, threads int, block, randBlock int64) int64 {
	need := 2 * (clientCache + serverCache)
	unit := lcm(block, randBlock) * int64(threads)
	if need <= 0 {
		return unit
	}
	return (need + unit - 1) / unit * unit
}

func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// cacheGuard is the seed's sizing rule for one read phase. The clients'
// caches count unless the read cannot find its data in them on any node
// (cold: every node's verdict is O_DIRECT, bytes it never touched, or a
// dropped page cache on a filesystem that caches nowhere else; see
// nodeVerdict). The servers' cache (--server-cache) always counts: no
// client empties it.
func cacheGuard(cold bool, client, server, total int64) *result.CacheGuard {
	g := &result.CacheGuard{ServerCache: server, Total: total}
	if !cold {
		g.ClientCache = client
	}
	g.RequiredTotal = 2 * (g.ClientCache + g.ServerCache)
	g.Applies = g.RequiredTotal > 0
	g.Warned = g.Applies && total < g.RequiredTotal
	return g
}

// guardWarning words a warned guard for the reader of the table.
func guardWarning(name string, g *result.CacheGuard, kernels int, drop settings.DropMethod) string {
	return fmt.Sprintf("%s: total %s is under twice what the caches can hold (2 × (clients %s on %d node(s) + servers %s) = %s), "+
		"and the read is not shown cold on every node (drop: %s; see its cache verdicts): the figure may come from memory, not storage; "+
		"use --total auto, --read-shift, --direct or root for drop_caches",
		name, units.FormatBytes(g.Total), units.FormatBytes(g.ClientCache), kernels,
		units.FormatBytes(g.ServerCache), units.FormatBytes(g.RequiredTotal), drop)
}

// residencyWarnings say when a read phase began with its data already in
// a node's page cache, naming the node, or was run with nothing at all
// keeping its data out of the cache. An O_DIRECT read is never served
// from the page cache (ext4, XFS, Lustre, GPFS and NFS bypass it; tmpfs
// refuses O_DIRECT), so its pages being there says nothing of its figure:
// resident_fraction still records them, but no warning marks the phase.
func residencyWarnings(p *result.Phase, dropCaches settings.DropMode, direct bool, shift int) []string {
	if direct {
		return nil
	}
	var out []string
	if shift == 0 && dropCaches == settings.DropOff {
		out = append(out, fmt.Sprintf("%s: --drop-caches off with no --read-shift and no --direct: the read may come from the page cache", p.Name))
	}
	for _, h := range p.ResidentByHost {
		if h.ResidentFraction > residentLimit {
			out = append(out, fmt.Sprintf("%s: %.0f%% of the pages to be read were in %s's page cache as the phase began: the figure may be a cache figure",
				p.Name, 100*h.ResidentFraction, h.Host))
		}
	}
	return out
}

// skewWarning says when threads began far apart (start skew over 1% of
// the window and over a millisecond), naming the node of the last one
// to start. That is scheduling on the nodes: the clocks are known to
// within clockErr (the largest bound of the ranks' offsets), and the
// release skew says how far apart the ranks' first threads woke for the
// release, which a starved node makes late too. The release itself holds
// no clock error: each rank's release moment is converted with the offset
// its release time was set by, so the two cancel.
func skewWarning(p *result.Phase, clockErr int64) string {
	if !p.Skewed() {
		return ""
	}
	last := p.Threads[0]
	for _, t := range p.Threads {
		if t.StartNS > last.StartNS {
			last = t
		}
	}
	return fmt.Sprintf("%s: threads began over %s, %.1f%% of the %s window (the last, thread %d, on %s): "+
		"scheduling on the nodes, not clock error (clocks known to ±%s; the ranks' first threads woke for "+
		"the release within %s of each other)",
		p.Name, time.Duration(p.StartSkewNS).Round(time.Microsecond), 100*float64(p.StartSkewNS)/float64(p.WindowNS),
		time.Duration(p.WindowNS).Round(time.Microsecond), last.Thread, last.Host,
		time.Duration(clockErr).Round(time.Microsecond), time.Duration(p.ReleaseSkewNS).Round(time.Microsecond))
}
