package coordinator

import (
	"reflect"
	"testing"

	"ioswarm/launcher"
)

func hosts(names ...string) []launcher.Target {
	t := make([]launcher.Target, len(names))
	for i, n := range names {
		t[i] = launcher.Target{Host: n}
	}
	return t
}

func TestPlacementRoundRobin(t *testing.T) {
	p := place(6, hosts("a", "b", "c", "d"))
	want := [][]int{{0, 4}, {1, 5}, {2}, {3}}
	if !reflect.DeepEqual(p.threads, want) {
		t.Fatalf("6 threads over 4 hosts: %v, want %v", p.threads, want)
	}
	counts := []int{}
	for _, th := range p.threads {
		counts = append(counts, len(th))
	}
	if !reflect.DeepEqual(counts, []int{2, 2, 1, 1}) {
		t.Fatalf("counts %v, want 2,2,1,1", counts)
	}
}

func TestPlacementUsesFirstHosts(t *testing.T) {
	names := make([]string, 16)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	p := place(4, hosts(names...))
	if len(p.targets) != 4 || p.targets[3].Host != "d" || p.targets[3].Rank != 3 {
		t.Fatalf("4 threads over 16 hosts should use a..d: %+v", p.targets)
	}
}

func TestOneDropperPerHost(t *testing.T) {
	p := place(5, hosts("x", "x", "y"))
	if !reflect.DeepEqual(p.dropper, []bool{true, false, true}) {
		t.Fatalf("dropper %v", p.dropper)
	}
	if !reflect.DeepEqual(p.threads, [][]int{{0, 3}, {1, 4}, {2}}) {
		t.Fatalf("threads %v", p.threads)
	}
}
