package coordinator

import (
	"slices"
	"strings"
	"testing"

	"ioswarm/internal/usage"
)

// placed places threads round-robin over the named nodes, as a job does,
// and returns each rank's threads and host and a thread's host.
func placed(threads int, names ...string) ([][]int, []string, func(int) string) {
	p := place(threads, hosts(names...))
	hs := make([]string, len(p.targets))
	for r, t := range p.targets {
		hs[r] = t.Host
	}
	return p.threads, hs, func(t int) string { return hs[t%len(hs)] }
}

func TestReadSourcesTable(t *testing.T) {
	cases := []struct {
		threads int
		nodes   []string
		shift   int
		want    []int
		used    int
		note    bool
		errHas  string
	}{
		// One node: auto keeps reads local, an explicit shift is refused.
		{4, []string{"a"}, ReadShiftAuto, []int{0, 1, 2, 3}, 0, false, ""},
		{4, []string{"a"}, 1, nil, 0, false, "on 1 node(s) (a)"},
		// 8 threads on 4 nodes, one along: thread 0 (a) reads 1 (b) ...
		// (a runs 0 and 4, b 1 and 5, ...; 4 on a reads 5 on b, 3 on d reads 0 on a).
		{8, []string{"a", "b", "c", "d"}, 1, []int{1, 2, 3, 0, 5, 6, 7, 4}, 1, false, ""},
		{8, []string{"a", "b", "c", "d"}, ReadShiftAuto, []int{1, 2, 3, 0, 5, 6, 7, 4}, 1, false, ""},
		{8, []string{"a", "b", "c", "d"}, 2, []int{2, 3, 0, 1, 6, 7, 4, 5}, 2, false, ""},
		// Shifting by the node count would land on the same node.
		{8, []string{"a", "b", "c", "d"}, 4, nil, 0, false, "needs at least 5"},
		// 2 threads on 16 hosts use 2 nodes: a shift of 2 needs 3.
		{2, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"}, 2, nil, 0, false, "needs at least 3"},
		// Uneven: 5 threads on 4 nodes (a holds 0 and 4; node by node the
		// order is 0 4 1 2 3, shifted by 2) still read across nodes.
		{5, []string{"a", "b", "c", "d"}, 1, []int{1, 3, 0, 4, 2}, 1, false, ""},
		// 3 threads on 2 nodes cannot: thread 2 (a) would read thread 0 (a).
		{3, []string{"a", "b"}, 1, nil, 0, false, "thread 2 on a would read thread 0's file"},
		{3, []string{"a", "b"}, ReadShiftAuto, []int{0, 1, 2}, 0, true, ""},
		{4, []string{"a", "b"}, 0, []int{0, 1, 2, 3}, 0, false, ""},
		// Ranks sharing a host are one node.
		{4, []string{"a", "a"}, 1, nil, 0, false, "on 1 node(s)"},
		{4, []string{"a", "b"}, -2, nil, 0, false, "must be auto"},
	}
	for _, c := range cases {
		ranks, hs, _ := placed(c.threads, c.nodes...)
		src, used, note, err := readSources(ranks, hs, c.shift)
		name := strings.Join(c.nodes, ",")
		if c.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), c.errHas) || !usage.Is(err) {
				t.Errorf("%d threads on %s shift %d: err %v, want a usage error with %q", c.threads, name, c.shift, err, c.errHas)
			}
			continue
		}
		if err != nil || !slices.Equal(src, c.want) || used != c.used || (note != "") != c.note {
			t.Errorf("%d threads on %s shift %d: %v used %d note %q err %v, want %v used %d note %v",
				c.threads, name, c.shift, src, used, note, err, c.want, c.used, c.note)
		}
	}
}

// Every rotation is a permutation (each file read exactly once) and never
// reads on the writer's node, over many shapes.
func TestReadSourcesIsACrossNodePermutation(t *testing.T) {
	names := []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7"}
	for nodes := 2; nodes <= len(names); nodes++ {
		for threads := 1; threads <= 40; threads++ {
			ranks, hs, hostOf := placed(threads, names[:nodes]...)
			for shift := 1; shift < nodes; shift++ {
				src, _, _, err := readSources(ranks, hs, shift)
				if err != nil {
					continue
				}
				seen := make([]bool, threads)
				for i, s := range src {
					if seen[s] {
						t.Fatalf("%d threads on %d nodes shift %d: file %d read twice", threads, nodes, shift, s)
					}
					seen[s] = true
					if hostOf(s) == hostOf(i) {
						t.Fatalf("%d threads on %d nodes shift %d: thread %d reads on its own node", threads, nodes, shift, i)
					}
					if r := len(ranks); threads%r == 0 && s%r != (i+shift)%r {
						t.Fatalf("%d threads on %d ranks shift %d: thread %d (rank %d) reads thread %d (rank %d), not %d ranks along",
							threads, r, shift, i, i%r, s, s%r, shift)
					}
				}
			}
			if threads%min(nodes, threads) == 0 && threads >= 2 && min(nodes, threads) >= 2 {
				if _, used, _, err := readSources(ranks, hs, ReadShiftAuto); err != nil || used != 1 {
					t.Errorf("%d threads on %d nodes: auto should rotate one node (used %d, err %v)", threads, nodes, used, err)
				}
			}
		}
	}
}
