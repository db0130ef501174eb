package coordinator

import (
	"context"
	"fmt"

	"ioswarm/barrier"
	"ioswarm/hostlist"
	"ioswarm/nodefacts"
	"ioswarm/wire"
)

// facts asks every rank about its node's memory and the filesystem under
// its --dir. Ranks without threads in this job answer too but are left
// out of every rule.
func (j *job) askFacts(ctx context.Context) ([]nodefacts.Facts, error) {
	facts, err := callAll[wire.FactsReply](ctx, j.s.coord, wire.KindFacts, "facts", func(r int) any {
		return wire.Facts{Dir: j.dirOf(j.s.targets[r])}
	})
	if err != nil {
		return nil, fmt.Errorf("asking nodes about memory and filesystem: %w", err)
	}
	return facts, nil
}

// working are the ranks that run threads in this job.
func (j *job) working() []int {
	var rs []int
	for r, th := range j.threads {
		if len(th) > 0 {
			rs = append(rs, r)
		}
	}
	return rs
}

// sameFilesystem stops the job when a node would measure another
// filesystem than the rest, such as a client whose mount is missing and
// whose empty mount point sits on its local disk, or when --dir is
// read-only on a node. --allow-mixed-fs lets mixed filesystems run.
func (j *job) sameFilesystem(facts []nodefacts.Facts) error {
	ranks := j.working()
	for _, r := range ranks {
		if facts[r].ReadOnly {
			return &barrier.RankError{Host: j.s.targets[r].Host, Rank: r,
				Msg: fmt.Sprintf("dir %s is not writable: read-only file system (%s mounted read-only at %s)", j.dirOf(j.s.targets[r]),
					facts[r].Describe(), facts[r].MountPoint)}
		}
	}
	keys := make([]string, len(ranks))
	for i, r := range ranks {
		keys[i] = facts[r].FSKey()
	}
	_, odd := nodefacts.OddFilesystems(keys)
	if len(odd) == 0 {
		return nil
	}
	if j.o.AllowMixedFS {
		return j.unrotate()
	}
	first := ranks[firstNotIn(len(ranks), odd)]
	common := facts[first]
	r := ranks[odd[0]]
	if len(ranks)-len(odd) == 1 && len(ranks) > 2 {
		// No two nodes share one: a node-local path (/tmp, a local
		// disk), where "the other nodes'" would name one node's disk
		// as if the rest agreed on it.
		return usagef("--dir %s is on a filesystem of its own on each of the %d nodes (host %s rank %d: %s at %s, host %s rank %d: %s at %s, and so on): every node must measure the same filesystem (is it a node-local path? --allow-mixed-fs runs anyway)",
			j.dirOf(j.s.targets[first]), len(ranks), j.s.targets[first].Host, first, common.Describe(), common.MountPoint,
			j.s.targets[r].Host, r, facts[r].Describe(), facts[r].MountPoint)
	}
	others := ""
	if len(odd) > 1 {
		var names []string
		for _, i := range odd[1:] {
			names = append(names, j.s.targets[ranks[i]].Host)
		}
		// Hundreds of nodes fold into hostlist ranges: node[3-200].
		others = " (so do " + hostlist.Compress(names) + ")"
	}
	return usagef("host %s rank %d: --dir %s is on %s at %s, the other nodes' on %s at %s%s: every node must measure the same filesystem (is a mount missing? --allow-mixed-fs runs anyway)",
		j.s.targets[r].Host, r, j.dirOf(j.s.targets[r]), facts[r].Describe(), facts[r].MountPoint,
		common.Describe(), common.MountPoint, others)
}

// unrotate keeps the reads on the writing node when the nodes measure
// different filesystems, where no node can read another's files: auto
// gives way with a warning, an explicit shift is an error.
func (j *job) unrotate() error {
	if j.shift == 0 {
		return nil
	}
	if j.o.ReadShift != ReadShiftAuto {
		return usagef("--read-shift %d with --allow-mixed-fs: nodes on different filesystems cannot read each other's files (use --read-shift 0)", j.o.ReadShift)
	}
	j.shift, j.sources = 0, identity(len(j.sources))
	j.res.Config.ReadShift = 0
	j.warn("--read-shift auto: the nodes measure different filesystems (--allow-mixed-fs), so each reads its own files")
	return nil
}

// firstNotIn is the first index below n that odd does not hold.
func firstNotIn(n int, odd []int) int {
	in := map[int]bool{}
	for _, i := range odd {
		in[i] = true
	}
	for i := 0; i < n; i++ {
		if !in[i] {
			return i
		}
	}
	return 0
}

// droppers picks, for each kernel, the one rank that drops its page
// cache: drop_caches empties the whole kernel's cache, so one write per
// kernel does it. Ranks reporting the same boot id share a kernel
// (several ranks on a host, containers, the namespaced test bed, where
// 200 "nodes" dropping one kernel's cache at once stalled it for seconds);
// a rank with no boot id counts by its host name.
func (j *job) droppers(facts []nodefacts.Facts) []bool {
	d := make([]bool, len(j.threads))
	seen := map[string]bool{}
	for _, r := range j.working() {
		k := j.kernelOf(facts, r)
		if !seen[k] {
			seen[k] = true
			d[r] = true
		}
	}
	return d
}

// cpuSlots gives each rank the place of its first thread among the
// threads that run on its kernel, counted in rank order, and how many
// threads that kernel runs in all. A rank holds its i-th thread on the
// (slot+i)-th CPU it may use while the thread waits for a phase's start
// (rank/spread.go), and where the kernel's threads outnumber its CPUs,
// its whole process on those CPUs for the job (rank/bind.go). Counted
// per rank, every rank of one thread (an IOzone threadlist puts one on
// each line, many lines to a node) held its thread on the node's first
// CPU, all of them started there, and the kernel took tens of
// milliseconds to move them apart.
func (j *job) cpuSlots(facts []nodefacts.Facts) (slots, kernelThreads []int) {
	slots = make([]int, len(j.threads))
	kernelThreads = make([]int, len(j.threads))
	next := map[string]int{}
	for _, r := range j.working() {
		k := j.kernelOf(facts, r)
		slots[r] = next[k]
		next[k] += len(j.threads[r])
	}
	for _, r := range j.working() {
		kernelThreads[r] = next[j.kernelOf(facts, r)]
	}
	return slots, kernelThreads
}

// kernelOf names the kernel rank r runs on: its boot id, or its host
// where the node reported none.
func (j *job) kernelOf(facts []nodefacts.Facts, r int) string {
	if facts[r].BootID == "" {
		return "host " + j.s.targets[r].Host
	}
	return "boot " + facts[r].BootID
}
