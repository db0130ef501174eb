package coordinator

import "slices"

// touches records, for each thread's file (or part of a shared file),
// the nodes that wrote or read it so far in this job or in the kept job
// it reuses: a node that touched a file may hold it in a cache no drop
// reaches, so a read there cannot be called storage on that ground.
type touches struct {
	by [][]string // by[f]: hosts that touched file f, in order
}

// newTouches starts with each file touched by the node of the thread
// that owns it: its writer, or the node that prefills it, or the kept
// job's writer (a reuse runs the kept placement).
func newTouches(threads int, ownerHost func(int) string) *touches {
	t := &touches{by: make([][]string, threads)}
	for f := range t.by {
		t.add(f, ownerHost(f))
	}
	return t
}

func (t *touches) add(f int, host string) {
	if f < 0 || f >= len(t.by) || host == "" || slices.Contains(t.by[f], host) {
		return
	}
	t.by[f] = append(t.by[f], host)
}

// touched says whether host touched file f.
func (t *touches) touched(f int, host string) bool {
	return f >= 0 && f < len(t.by) && slices.Contains(t.by[f], host)
}

// addAll marks every file touched by every host (a random phase over a
// whole shared file reaches every part).
func (t *touches) addAll(hosts []string) {
	for f := range t.by {
		for _, h := range hosts {
			t.add(f, h)
		}
	}
}

// conflicts counts the readers that would read a file their own node
// touched: src[r] is the file reader r reads, hostOf its node.
func (t *touches) conflicts(src []int, hostOf func(int) string) int {
	n := 0
	for r, f := range src {
		if t.touched(f, hostOf(r)) {
			n++
		}
	}
	return n
}

// shiftOrder lists the rotations to try for a read, first the one asked
// for (first, at least 1) and then the next ones along, each at most
// once: 1 … nodes−1 nodes along.
func shiftOrder(first, nodes int) []int {
	if nodes < 2 {
		return nil
	}
	first = max(first, 1)
	out := make([]int, 0, nodes-1)
	for k := 0; k < nodes-1; k++ {
		out = append(out, (first-1+k)%(nodes-1)+1)
	}
	return out
}

// coldSources chooses the files a read phase's threads read: the first
// rotation in shiftOrder under which no reader's node touched the file it
// reads. When none is left it takes the rotation with the fewest such
// readers (identity when none rotates) and says so with exhausted.
func coldSources(ranks [][]int, hosts []string, first int, t *touches, hostOf func(int) string) (src []int, shift int, exhausted bool) {
	threads := 0
	for _, th := range ranks {
		threads += len(th)
	}
	best, bestShift, bestConflicts := identity(threads), 0, -1
	for _, s := range shiftOrder(first, len(distinctNodes(ranks, hosts))) {
		cand, err := rotate(ranks, hosts, threads, s)
		if err != nil {
			continue
		}
		c := t.conflicts(cand, hostOf)
		if c == 0 {
			return cand, s, false
		}
		if bestConflicts < 0 || c < bestConflicts {
			best, bestShift, bestConflicts = cand, s, c
		}
	}
	return best, bestShift, true
}
