package report

import (
	"testing"

	"ioswarm/result"
)

func TestNodesCountedByName(t *testing.T) {
	hosts := func(names ...string) []result.Host {
		var hs []result.Host
		for i, n := range names {
			hs = append(hs, result.Host{Host: n, Rank: i})
		}
		return hs
	}
	for _, c := range []struct {
		hosts []result.Host
		want  string
	}{
		{hosts("node1", "node2"), "2"},
		// An IOzone -+m file of 8 lines over 4 hosts: one rank per line.
		{hosts("node1", "node2", "node3", "node4", "node1", "node2", "node3", "node4"), "4 (8 ranks)"},
		{hosts("box", "box", "box"), "1 (3 ranks)"},
		{nil, "0"},
	} {
		if got := nodesText(c.hosts); got != c.want {
			t.Errorf("%d ranks: got %q, want %q", len(c.hosts), got, c.want)
		}
	}
}
