package resplan

// Cap is the most memory a rank may use before it stops itself with an
// error: twice its estimate and some room, so an estimate somewhat off
// never stops a healthy run, but never more than its part of what its
// node has available, shared among the ranks there in proportion to
// their estimates. So a rank that grows past every estimate fails with a
// message of its own instead of waking the kernel's OOM killer, which on
// a shared node may pick someone else's process; and when the plan fits,
// each rank's part is at least its estimate. rankNeed is the rank's
// estimate, kernelNeed the estimates of all the ranks on its node (its
// own included), avail the node's available memory (0: unknown).
func Cap(rankNeed, kernelNeed, avail int64) int64 {
	c := 2*rankNeed + capSlack
	if avail > 0 && kernelNeed > 0 {
		// avail × rankNeed / kernelNeed without overflow for large sizes.
		share := int64(float64(avail) * (float64(rankNeed) / float64(kernelNeed)))
		c = min(c, share)
	}
	return c
}

// capSlack is room beyond the estimate for what it does not model
// (allocator fragments, page tables, a large reply being encoded).
const capSlack = 256 << 20
