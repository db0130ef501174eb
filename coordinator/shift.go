package coordinator

import (
	"fmt"
	"strings"
)

// ReadShiftAuto asks for rotated reads one node along wherever the
// threads run on two nodes or more.
const ReadShiftAuto = -1

// readSources says, for every thread, whose file it reads in the read
// phases (read and randread), as IOR's -Q does for tasks: list the threads
// node by node (rank 0's threads, then rank 1's, ...); the reader at
// position p reads the file at position p + shift·m (mod threads), m being
// the most threads any rank runs. When every rank runs m threads, each
// thread reads a file written exactly shift nodes further along; with an
// uneven placement it still reads a file of another node. So no reader
// finds its file in its own node's cache, only in the writer's. ranks
// lists each rank's threads and hosts each rank's node.
//
// A shift that would leave any thread reading a file written on its own
// node is an error naming that thread, never a silent partial rotation.
// ReadShiftAuto takes one node along when that works and no shift on a
// single node; where no rotation works (three threads on two nodes), it
// keeps the reads local and says so in note.
func readSources(ranks [][]int, hosts []string, shift int) (src []int, used int, note string, err error) {
	threads := 0
	for _, th := range ranks {
		threads += len(th)
	}
	nodes := distinctNodes(ranks, hosts)
	if shift == ReadShiftAuto {
		if len(nodes) < 2 {
			return identity(threads), 0, "", nil
		}
		src, err := rotate(ranks, hosts, threads, 1)
		if err != nil {
			return identity(threads), 0, "--read-shift auto: no rotation: " + err.Error() +
				"; reads are from the writing node", nil
		}
		return src, 1, "", nil
	}
	if shift < 0 {
		return nil, 0, "", usagef("--read-shift %d: must be auto or a number of nodes, 0 or more", shift)
	}
	if shift == 0 {
		return identity(threads), 0, "", nil
	}
	if len(nodes) < shift+1 {
		return nil, 0, "", usagef("--read-shift %d: the %d threads run on %d node(s) (%s); reading %d node(s) along needs at least %d",
			shift, threads, len(nodes), strings.Join(nodes, ", "), shift, shift+1)
	}
	src, err = rotate(ranks, hosts, threads, shift)
	if err != nil {
		return nil, 0, "", usagef("--read-shift %d: %v", shift, err)
	}
	return src, shift, "", nil
}

func rotate(ranks [][]int, hosts []string, threads, shift int) ([]int, error) {
	var order []int // threads node by node
	host := make([]string, threads)
	m := 0
	for r, th := range ranks {
		order = append(order, th...)
		for _, t := range th {
			host[t] = hosts[r]
		}
		m = max(m, len(th))
	}
	src := make([]int, threads)
	for p, t := range order {
		src[t] = order[(p+shift*m)%threads]
		if host[src[t]] == host[t] {
			return nil, fmt.Errorf("thread %d on %s would read thread %d's file, written on the same node "+
				"(%d threads on %d nodes, up to %d on one, do not rotate %d node(s) along)",
				t, host[t], src[t], threads, len(distinctNodes(ranks, hosts)), m, shift)
		}
	}
	return src, nil
}

func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// distinctNodes lists the hosts of the ranks that run threads.
func distinctNodes(ranks [][]int, hosts []string) []string {
	var nodes []string
	seen := map[string]bool{}
	for r, th := range ranks {
		if h := hosts[r]; len(th) > 0 && !seen[h] {
			seen[h] = true
			nodes = append(nodes, h)
		}
	}
	return nodes
}
