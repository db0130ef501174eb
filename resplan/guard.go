package resplan

// Cap is the most memory a rank may use before it stops itself with an
// error: twice its estimate and some room, so an estimate somewhat off
// never stops a healthy run, but never more than its part of nine tenths
// of what its node has available, so that a rank that grows past every
// estimate fails with a message of its own instead of waking the
// kernel's OOM killer, which on a shared node may pick someone else's
// process. avail is the node's available memory (0: unknown) and ranks
// how many ranks draw on it.
func Cap(m Memory, avail int64, ranks int) int64 {
	c := 2*m.Total() + capSlack
	if avail > 0 {
		c = min(c, avail/int64(max(ranks, 1))/10*9)
	}
	return c
}

// capSlack is room beyond the estimate for what it does not model
// (allocator fragments, page tables, a large reply being encoded).
const capSlack = 256 << 20
