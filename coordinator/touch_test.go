package coordinator

import (
	"fmt"
	"reflect"
	"testing"

	"ioswarm/wire"
)

// Reads of the same files move to nodes that have not touched them: on
// N nodes the K-th read (K = 1 … N−1) reads K nodes along, and once every
// node has touched every file the choice says it ran out.
func TestColdSourcesMoveOnUntilNoNodeIsLeft(t *testing.T) {
	for _, nodes := range []int{2, 3, 4, 5} {
		hosts := make([]string, nodes)
		ranks := make([][]int, nodes)
		for r := range hosts {
			hosts[r] = fmt.Sprintf("n%d", r+1)
			ranks[r] = []int{2 * r, 2*r + 1} // two threads a node
		}
		threads := 2 * nodes
		hostOf := func(th int) string { return hosts[th/2] }
		touch := newTouches(threads, hostOf)
		for k := 1; k <= nodes+1; k++ {
			src, shift, exhausted := coldSources(ranks, hosts, 1, touch, hostOf)
			if k < nodes {
				if exhausted || shift != k {
					t.Fatalf("%d nodes, read %d: shift %d exhausted %v, want shift %d", nodes, k, shift, exhausted, k)
				}
				for r, f := range src {
					if want := (r + 2*k) % threads; f != want {
						t.Errorf("%d nodes, read %d: thread %d reads %d, want %d", nodes, k, r, f, want)
					}
				}
			} else if !exhausted {
				t.Errorf("%d nodes, read %d: every node touched every file, yet not exhausted (shift %d)", nodes, k, shift)
			}
			if touch.conflicts(src, hostOf) != 0 != exhausted {
				t.Errorf("%d nodes, read %d: conflicts %d, exhausted %v", nodes, k, touch.conflicts(src, hostOf), exhausted)
			}
			for r, f := range src {
				touch.add(f, hostOf(r))
			}
		}
	}
}

// The rotation asked for comes first, then the ones after it.
func TestShiftOrder(t *testing.T) {
	for _, c := range []struct {
		first, nodes int
		want         []int
	}{
		{1, 4, []int{1, 2, 3}},
		{2, 4, []int{2, 3, 1}},
		{3, 4, []int{3, 1, 2}},
		{0, 3, []int{1, 2}},
		{1, 1, nil},
	} {
		if got := shiftOrder(c.first, c.nodes); !reflect.DeepEqual(got, c.want) {
			t.Errorf("shiftOrder(%d, %d) = %v, want %v", c.first, c.nodes, got, c.want)
		}
	}
}

// A kept job's manifest carries writers and readers: a reuse adds them,
// and an old manifest without readers leaves them unknown, which the
// manifest written back keeps saying.
func TestKeptTouchesRoundTrip(t *testing.T) {
	j := jobOn("n1", "n2", "n3")
	j.o.Threads = 3
	j.threadHost = []string{"n1", "n2", "n3"}
	j.initColdReads()
	m := keptManifest(3)
	m.WrittenBy = []string{"n1", "n2", "n3"}
	m.ReadBy = [][]string{{"n2"}, {"n3"}, {}}
	j.applyKept(m)
	if j.cold.readersUnknown || !j.cold.touch.touched(0, "n2") || !j.cold.touch.touched(1, "n3") || j.cold.touch.touched(2, "n1") {
		t.Fatalf("touches after a manifest with readers: %v, unknown %v", j.cold.touch.by, j.cold.readersUnknown)
	}
	var back = m
	j.keptTouches(&back)
	if !reflect.DeepEqual(back.ReadBy, [][]string{{"n2"}, {"n3"}, {}}) || !reflect.DeepEqual(back.WrittenBy, m.WrittenBy) {
		t.Errorf("written back: writers %v readers %v", back.WrittenBy, back.ReadBy)
	}
	old := jobOn("n1", "n2", "n3")
	old.o.Threads = 3
	old.threadHost = j.threadHost
	old.initColdReads()
	old.applyKept(keptManifest(3))
	if !old.cold.readersUnknown {
		t.Error("a manifest without read_by: readers should be unknown")
	}
	back = keptManifest(3)
	old.keptTouches(&back)
	if back.ReadBy != nil || len(back.WrittenBy) != 3 {
		t.Errorf("an old manifest written back claims readers %v (writers %v)", back.ReadBy, back.WrittenBy)
	}
}

// keptManifest is a kept job's manifest from before writers and readers
// were recorded.
func keptManifest(threads int) wire.Manifest {
	hosts := make([]string, threads)
	for t := range hosts {
		hosts[t] = fmt.Sprintf("n%d", t+1)
	}
	return wire.Manifest{JobID: "0123456789ab", Threads: threads, FileSize: 1 << 20, Block: 1 << 20, Hosts: hosts}
}
