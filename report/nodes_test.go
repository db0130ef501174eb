package report

import (
	"strings"
	"testing"

	"ioswarm/result"
)

func phaseOf(threads ...result.Thread) *result.Phase {
	p := &result.Phase{Name: "write", Iteration: 1, Threads: threads}
	for _, t := range threads {
		if p.StartNS == 0 || t.StartNS < p.StartNS {
			p.StartNS = t.StartNS
		}
	}
	return p
}

// A node more than 20% below the median node is named with its rate;
// one within 20% is not.
func TestStragglerNamesTheSlowNode(t *testing.T) {
	const s = int64(1e9)
	th := func(host string, thread int, bytes, end int64) result.Thread {
		return result.Thread{Host: host, Thread: thread, Bytes: bytes, StartNS: s, EndNS: s + end}
	}
	// node1..3 move 1 GB in 1 s; node3 takes 2 s: 0.5 GB/s against a median of 1.
	p := phaseOf(th("node1", 0, 1e9, s), th("node2", 1, 1e9, s), th("node3", 2, 1e9, 2*s), th("node4", 3, 1e9, s))
	got := straggler(p)
	for _, want := range []string{"node node3", "0.500 GB/s", "50% below", "(1.000)"} {
		if !strings.Contains(got, want) {
			t.Errorf("straggler %q lacks %q", got, want)
		}
	}
	// 1.25 s is 20% slower: within the gap, nobody is named.
	p = phaseOf(th("node1", 0, 1e9, s), th("node2", 1, 1e9, s*5/4), th("node3", 2, 1e9, s))
	if got := straggler(p); got != "" {
		t.Errorf("a node 20%% slow was named: %q", got)
	}
	// On one node, the slow thread is named instead.
	p = phaseOf(th("vm", 0, 1e9, s), th("vm", 1, 1e9, s), th("vm", 2, 1e9, 3*s))
	if got := straggler(p); !strings.Contains(got, "thread 2") || !strings.Contains(got, "67% below") {
		t.Errorf("slow thread on one node: %q", got)
	}
}

// Per-node rates use the node's own window: the bytes of its threads over
// its earliest start to latest end.
func TestSharesUseTheNodesWindow(t *testing.T) {
	p := phaseOf(
		result.Thread{Host: "a", Thread: 0, Bytes: 500, StartNS: 1000, EndNS: 2000},
		result.Thread{Host: "a", Thread: 2, Bytes: 500, StartNS: 1500, EndNS: 3000},
		result.Thread{Host: "b", Thread: 1, Bytes: 100, StartNS: 1000, EndNS: 1100},
	)
	ns := shares(p)
	if len(ns) != 2 || ns[0].host != "a" || ns[0].bytes != 1000 || ns[0].start != 1000 || ns[0].end != 3000 {
		t.Fatalf("shares %+v", ns)
	}
	if want := 1000 / 2000e-9; ns[0].rate != want || ns[0].slowest != 2 {
		t.Errorf("node a rate %g slowest %d, want %g and thread 2", ns[0].rate, ns[0].slowest, want)
	}
}
