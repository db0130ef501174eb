package clientcache

import (
	"context"
	"errors"
	"time"

	"ioswarm/mounts"
)

// Kind names a client cache as a user would recognise it.
type Kind string

// The kinds of client cache. PageCache is every mount no probe claims:
// its data is cached, if at all, in the kernel page cache.
const (
	PageCache Kind = "page cache"
	CephFuse  Kind = "ceph-fuse object cacher"
	GPFS      Kind = "gpfs pagepool"
	Lustre    Kind = "lustre max_cached_mb"
)

// Info describes the client cache a directory's mount has.
type Info struct {
	Kind Kind `json:"kind"`
	// Size is what the cache can hold in bytes; 0 means unknown (and,
	// for the page cache, the node's memory).
	Size int64 `json:"size,omitempty"`
	// Outside says the cache is not the kernel page cache: drop_caches
	// does not empty it and mincore cannot see it.
	Outside bool `json:"outside_page_cache,omitempty"`
	// Counters says its hit and miss bytes can be read on this node.
	Counters bool `json:"counters,omitempty"`
	// Note says what could not be probed, and why.
	Note string `json:"note,omitempty"`
}

// Counters are a cache's running totals since its client started, as the
// client keeps them. HitBytes and MissBytes are the cache's own counts;
// ceph-fuse's count a read again each time it is retried while its data
// is on the way, and its misses include read-ahead, so neither is the
// bytes a reader got. FetchedBytes is what the client received from the
// servers (ceph-fuse: its messengers' received bytes, data and a little
// metadata traffic; Lustre: the pages its read-ahead missed): data a node
// read that is not in it came from a cache.
type Counters struct {
	HitBytes     int64 `json:"hit_bytes"`
	MissBytes    int64 `json:"miss_bytes"`
	FetchedBytes int64 `json:"fetched_bytes"`
}

// Sub is what the cache counted between an earlier reading and c.
func (c Counters) Sub(before Counters) Counters {
	return Counters{HitBytes: c.HitBytes - before.HitBytes, MissBytes: c.MissBytes - before.MissBytes,
		FetchedBytes: c.FetchedBytes - before.FetchedBytes}
}

// ErrNoCounters is what Cache.Read returns when the cache shows none.
var ErrNoCounters = errors.New("the client cache shows no hit/miss counters here")

// Cache is a probed client cache.
type Cache struct {
	info Info
	read func(ctx context.Context) (Counters, error) // nil: no counters
}

// Info describes the cache.
func (c *Cache) Info() Info { return c.info }

// Read reads the cache's counters now.
func (c *Cache) Read(ctx context.Context) (Counters, error) {
	if c == nil || c.read == nil {
		return Counters{}, ErrNoCounters
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	return c.read(ctx)
}

// probeTimeout bounds each look at a client: a hung admin socket or tool
// must not hold a job's setup or a phase's end.
const probeTimeout = 3 * time.Second

// Probe finds the client cache of the mount holding dir. It never fails:
// what cannot be found is said in the Info's Note.
func Probe(ctx context.Context, dir string) *Cache {
	return probeWith(ctx, systemEnv(), mounts.At(dir))
}

func probeWith(ctx context.Context, e env, m mounts.Mount) *Cache {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	for _, k := range kinds() {
		if k.claims(m) {
			c := k.probe(ctx, e, m)
			c.info.Kind, c.info.Outside = k.kind, k.outside
			c.info.Counters = c.read != nil
			return c
		}
	}
	return &Cache{info: Info{Kind: PageCache}}
}
