package coordinator

import (
	"slices"

	"ioswarm/launcher"
)

// placement says which rank runs which global thread: thread i runs on rank
// i mod R, as IOzone's threadlist places threads round-robin over its
// clients. R is the number of targets, capped at the thread count, so
// --threads 4 over 16 hosts uses the first 4 hosts.
type placement struct {
	targets []launcher.Target // one per rank, in host order
	threads [][]int           // threads[rank] = global thread numbers
	// dropper[rank] is true for the first rank on each distinct host,
	// which alone drops that node's page cache.
	dropper []bool
}

// This is the one place the rank cap is applied: Start starts the ranks
// of the placement of a session's largest job, and each job places its
// threads on those. The targets are copied, never changed in place.
func place(threads int, targets []launcher.Target) placement {
	ranks := min(len(targets), threads)
	p := placement{targets: slices.Clone(targets[:ranks]), threads: make([][]int, ranks), dropper: make([]bool, ranks)}
	for t := 0; t < threads; t++ {
		p.threads[t%ranks] = append(p.threads[t%ranks], t)
	}
	seen := map[string]bool{}
	for r, tg := range p.targets {
		p.targets[r].Rank = r
		if !seen[tg.Host] {
			seen[tg.Host] = true
			p.dropper[r] = true
		}
	}
	return p
}

// localTargets are n ranks on this machine, all named host.
func localTargets(n int, host string) []launcher.Target {
	t := make([]launcher.Target, n)
	for i := range t {
		t[i] = launcher.Target{Rank: i, Host: host}
	}
	return t
}
