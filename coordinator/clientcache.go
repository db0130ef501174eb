package coordinator

import (
	"fmt"

	"ioswarm/clientcache"
	"ioswarm/result"
	"ioswarm/units"
	"ioswarm/wire"
)

// clientCacheLimit is the part of the bytes a node read in a read phase
// that may have come from its client cache (not from the servers) before
// the figure is called a possible cache figure: the residency check's 5%.
const clientCacheLimit = 0.05

// hostClientCache is a node's client cache as the result file holds it.
func hostClientCache(i clientcache.Info) *result.ClientCache {
	return &result.ClientCache{Kind: string(i.Kind), Size: i.Size, Outside: i.Outside, Counters: i.Counters, Note: i.Note}
}

// clientCacheUse records, for a read phase, what each node's client cache
// did (one rank per node: the ranks of a node share its client), and
// warns, naming the node, when more than clientCacheLimit of what the
// node read did not come from the servers.
func (j *job) clientCacheUse(p *result.Phase, replies []wire.RunReply) {
	read := map[string]int64{}
	for _, t := range p.Threads {
		read[t.Host] += t.Bytes
	}
	seen := map[string]bool{}
	for r, rep := range replies {
		host := j.s.targets[r].Host
		if rep.ClientCache == nil || seen[host] {
			continue
		}
		seen[host] = true
		h := byHostClientCache(host, r, rep.ClientCache, read[host])
		p.ClientCacheByHost = append(p.ClientCacheByHost, h)
		if w := clientCacheWarning(p.Name, h); w != "" {
			p.Warnings = append(p.Warnings, w)
			j.warn(w)
		}
	}
}

// byHostClientCache is one node's entry: the part of what it read that
// the servers did not send is 1 − fetched/read (what the client fetched
// includes read-ahead and metadata, so this errs towards "from the
// servers").
func byHostClientCache(host string, rank int, u *wire.ClientCacheUse, read int64) result.HostClientCache {
	h := result.HostClientCache{Host: host, Rank: rank, Kind: string(u.Cache.Kind), Size: u.Cache.Size,
		Counters: u.Counted, ReadBytes: read, Note: u.Note}
	if !u.Counted {
		return h
	}
	h.HitBytes, h.MissBytes, h.FetchedBytes = u.HitBytes, u.MissBytes, u.FetchedBytes
	if read > 0 {
		h.CachedFraction = max(0, 1-float64(u.FetchedBytes)/float64(read))
	}
	return h
}

// clientCacheWarning words a node whose reads came from its client cache.
func clientCacheWarning(phase string, h result.HostClientCache) string {
	if !h.Counters || h.CachedFraction <= clientCacheLimit {
		return ""
	}
	return fmt.Sprintf("%s: %.0f%% of the %s %s read did not come from the servers: its %s (%s) served them "+
		"(the client received %s from the servers); drop_caches does not empty it: the figure may be a cache figure",
		phase, 100*h.CachedFraction, units.FormatBytes(h.ReadBytes), h.Host, h.Kind, units.FormatBytes(h.Size),
		units.FormatBytes(h.FetchedBytes))
}
