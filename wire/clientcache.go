package wire

import "ioswarm/clientcache"

// ClientCacheUse is what a rank saw its node's client cache do during a
// read phase: the cache (kind, size) and, where its counters could be
// read before and after the phase, the bytes it served and missed in
// between. A rank sends it in RunReply for read phases on mounts whose
// cache is not the page cache alone.
type ClientCacheUse struct {
	Cache clientcache.Info `json:"cache"`
	// Counted says the counters were read both times; the bytes below
	// are then the difference.
	Counted   bool  `json:"counted,omitempty"`
	HitBytes  int64 `json:"hit_bytes,omitempty"`
	MissBytes int64 `json:"miss_bytes,omitempty"`
	// FetchedBytes is what the client received from the servers.
	FetchedBytes int64  `json:"fetched_bytes,omitempty"`
	Note         string `json:"note,omitempty"` // why the counters are missing
}
