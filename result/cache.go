package result

// HostResidency is the fraction of the pages a host's threads were about
// to read that were in that host's page cache as the phase started.
type HostResidency struct {
	Host             string  `json:"host"`
	ResidentFraction float64 `json:"resident_fraction"`
	// Pages is how many pages the fraction is of: 0 where the host had
	// none of the phase's files to look at, so that nothing was measured.
	Pages int64 `json:"pages"`
}

// CacheGuard is the seed's sizing rule checked before a read phase: the
// aggregate must be at least twice what the caches that could serve the
// read can hold. ClientCache counts only when the read is buffered, not
// rotated and its caches were not dropped on every node; ServerCache
// (--server-cache) always counts, since no client can empty it.
type CacheGuard struct {
	Applies       bool  `json:"applies"`
	Warned        bool  `json:"warned"`
	ClientCache   int64 `json:"client_cache"`
	ServerCache   int64 `json:"server_cache"`
	RequiredTotal int64 `json:"required_total"`
	Total         int64 `json:"total"`
}
