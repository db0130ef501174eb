package coordinator

import (
	"context"
	"fmt"
)

// SettleTotal settles --total auto once for a whole series of points (a
// study's section): the seed's rule, twice what the clients and servers
// can cache, on the nodes the largest point uses, rounded up to whole
// records for every one of the thread counts, so that the aggregate is
// the same at each point instead of each point sizing itself.
func (s *Session) SettleTotal(ctx context.Context, w Workload, threads []int) (int64, error) {
	largest := 0
	for _, n := range threads {
		if n <= 0 {
			return 0, fmt.Errorf("--total auto: a point of %d threads", n)
		}
		largest = max(largest, n)
	}
	w.Threads = largest
	j, err := s.newJob(w)
	if err != nil {
		return 0, err
	}
	facts, err := j.askFacts(ctx)
	if err != nil {
		return 0, err
	}
	cache, _ := j.sumClientCache(facts)
	return seriesTotal(cache, w.ServerCache, threads, w.Block, w.RandBlock), nil
}

// seriesTotal is the seed's aggregate for a series of thread counts: at
// least twice the caches, in whole records of both sizes at every count.
func seriesTotal(clientCache, serverCache int64, threads []int, block, randBlock int64) int64 {
	every := int64(1)
	for _, n := range threads {
		every = lcm(every, int64(n))
	}
	return autoTotal(clientCache, serverCache, int(every), block, randBlock)
}
