package result

// ClientCache is the client cache a node's mount of --dir has: the page
// cache, or one outside it that drop_caches does not empty (a ceph-fuse
// object cacher, a GPFS pagepool), with its size in bytes (0: unknown).
type ClientCache struct {
	Kind    string `json:"kind"`
	Size    int64  `json:"size,omitempty"`
	Outside bool   `json:"outside_page_cache,omitempty"`
	// Counters says the node could read the cache's hit/miss bytes.
	Counters bool   `json:"counters,omitempty"`
	Note     string `json:"note,omitempty"`
}

// HostClientCache is what one node's client cache did during a read
// phase, from the client's own counters read before and after it (rank is
// the rank that read them, one per node). HitBytes and MissBytes are the
// cache's counts as it keeps them (ceph-fuse counts a read again each time
// it retries it, and its misses include read-ahead), FetchedBytes what the
// client received from the servers (ceph-fuse: all its messengers'
// received bytes). ReadBytes is what the node's threads read in the phase,
// and CachedFraction the part of it the servers did not send: 1 −
// FetchedBytes/ReadBytes, at least 0. Without counters (Counters false:
// not root nor the client's user, or no probe for the kind) only the kind
// and size are known.
type HostClientCache struct {
	Host           string  `json:"host"`
	Rank           int     `json:"rank"`
	Kind           string  `json:"kind"`
	Size           int64   `json:"size"`
	Counters       bool    `json:"counters"`
	HitBytes       int64   `json:"hit_bytes"`
	MissBytes      int64   `json:"miss_bytes"`
	FetchedBytes   int64   `json:"fetched_bytes"`
	ReadBytes      int64   `json:"read_bytes"`
	CachedFraction float64 `json:"cached_fraction"`
	Note           string  `json:"note,omitempty"`
}
