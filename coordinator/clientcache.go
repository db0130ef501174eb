package coordinator

import (
	"fmt"
	"strings"

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
	var unseen []string // nodes whose cache outside the page cache shows no counters
	var kind, note string
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
			// What the cache's counters measured beats what the rules
			// foresaw: a node judged storage whose cache served its read
			// is maybe-cache.
			if verdictOf(p, host) == result.VerdictStorage {
				j.demoteVerdict(p, host, "client-cache", w)
			}
		}
		if !h.Counters && rep.ClientCache.Cache.Outside && verdictOf(p, host) != result.VerdictMaybeCache {
			// A node the verdict already holds maybe-cache is warned of
			// there; these are nodes it held storage by rule.
			unseen = append(unseen, host)
			kind, note = h.Kind, h.Note
		}
	}
	if len(unseen) > 0 && !j.coldWithoutCounters() {
		w := fmt.Sprintf("%s: the %s of %s, outside the page cache, shows no counters here (%s): drop_caches does not empty it, "+
			"and this read of files the job or a kept job read before may come from it: the figure may be a cache figure; "+
			"run as root or as the client's user to measure it, or read on nodes that never touched the files",
			p.Name, kind, strings.Join(unseen, ", "), note)
		p.Warnings = append(p.Warnings, w)
		j.warn(w)
	}
}

// coldWithoutCounters says whether a read phase is cold for every node's
// client cache even where its counters cannot be read: O_DIRECT goes
// round it, and the job's first read of its own files, rotated, reads on
// each node only what other nodes wrote. A later read (reread, another
// iteration, randread after read) may find what an earlier one left, and
// kept files (--reuse) what the jobs before read.
func (j *job) coldWithoutCounters() bool {
	if j.o.Direct {
		return true
	}
	if j.shift == 0 || j.filesOf != "" {
		return false
	}
	for _, done := range j.res.Phases {
		if wire.Phase(done.Name).IsRead() {
			return false
		}
	}
	return true
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

// verdictOf is host's cache verdict in read phase p ("" when the phase
// has none for it).
func verdictOf(p *result.Phase, host string) string {
	for _, v := range p.CacheVerdicts {
		if v.Host == host {
			return v.Verdict
		}
	}
	return ""
}
