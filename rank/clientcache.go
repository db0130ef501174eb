package rank

import (
	"context"

	"ioswarm/clientcache"
	"ioswarm/wire"
)

// clientCacheWatch holds the node's client cache, probed at the first
// read phase, and its counters as the coming phase begins.
type clientCacheWatch struct {
	cache  *clientcache.Cache
	before *clientcache.Counters
	note   string // why before is nil
}

// clientCacheOf probes the client cache of the benchmark directory's
// mount once per job.
func (s *state) clientCacheOf(ctx context.Context) *clientcache.Cache {
	if s.clientCache.cache == nil {
		s.clientCache.cache = clientcache.Probe(ctx, s.setup.Dir)
	}
	return s.clientCache.cache
}

// watchesClientCache says whether this rank reports on the client cache
// for phase: a read phase this rank has threads in.
func (s *state) watchesClientCache(phase wire.Phase) bool {
	return phase.IsRead() && len(s.setup.Threads) > 0
}

// clientCacheBefore reads the counters just before a read phase, after
// the caches were dropped, outside the timed window.
func (s *state) clientCacheBefore(ctx context.Context, phase wire.Phase) {
	s.clientCache.before, s.clientCache.note = nil, ""
	if !s.watchesClientCache(phase) {
		return
	}
	c := s.clientCacheOf(ctx)
	if c.Info().Kind == clientcache.PageCache {
		return
	}
	n, err := c.Read(ctx)
	if err != nil {
		s.clientCache.note = err.Error()
		return
	}
	s.clientCache.before = &n
}

// clientCacheAfter reads the counters again after the phase and says what
// the cache did in between; nil where the mount has only the page cache.
func (s *state) clientCacheAfter(ctx context.Context, phase wire.Phase) *wire.ClientCacheUse {
	if !s.watchesClientCache(phase) {
		return nil
	}
	c := s.clientCacheOf(ctx)
	info := c.Info()
	if info.Kind == clientcache.PageCache {
		return nil
	}
	u := &wire.ClientCacheUse{Cache: info, Note: s.clientCache.note}
	if s.clientCache.before == nil {
		if u.Note == "" {
			u.Note = info.Note
		}
		return u
	}
	after, err := c.Read(ctx)
	if err != nil {
		u.Note = err.Error()
		return u
	}
	d := after.Sub(*s.clientCache.before)
	u.Counted, u.HitBytes, u.MissBytes, u.FetchedBytes = true, d.HitBytes, d.MissBytes, d.FetchedBytes
	return u
}
