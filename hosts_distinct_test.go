package main

import (
	"reflect"
	"testing"

	"ioswarm/launcher"
)

// Eight -+m lines over four hosts are four nodes to check, in first-seen
// order with ranks renumbered; a host with another directory or port is
// another check.
func TestDistinctTargets(t *testing.T) {
	var in []launcher.Target
	for i := range 8 {
		in = append(in, launcher.Target{Rank: i, Host: []string{"node1", "node2", "node3", "node4"}[i%4], Dir: "/gpfs/x"})
	}
	in = append(in, launcher.Target{Rank: 8, Host: "node1", Dir: "/gpfs/y"}, launcher.Target{Rank: 9, Host: "node1", Dir: "/gpfs/x", Port: 2222})
	got := distinctTargets(in)
	want := []launcher.Target{
		{Rank: 0, Host: "node1", Dir: "/gpfs/x"}, {Rank: 1, Host: "node2", Dir: "/gpfs/x"},
		{Rank: 2, Host: "node3", Dir: "/gpfs/x"}, {Rank: 3, Host: "node4", Dir: "/gpfs/x"},
		{Rank: 4, Host: "node1", Dir: "/gpfs/y"}, {Rank: 5, Host: "node1", Dir: "/gpfs/x", Port: 2222},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
