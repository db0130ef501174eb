package htmlreport

import (
	"reflect"
	"testing"
)

// A warning every point carried is listed once, with the points; others
// keep their place in the order they first came.
func TestWarningsAreListedOnceWithTheirPoints(t *testing.T) {
	var ws warnings
	node := "host vm: a fact of the node"
	ws.add(node, "seq", 1)
	ws.add(node, "seq", 2)
	ws.add("read: threads began over 1 ms", "seq", 2)
	ws.add(node, "seq", 4)
	ws.add(node, "seq", 4) // a second iteration of the point
	ws.add(node, "random", 2)
	ws.add("only once", "random", 1)
	want := []Warning{
		{Where: "seq, 1, 2 and 4 threads; random, 2 threads", Text: node},
		{Where: "seq, 2 threads", Text: "read: threads began over 1 ms"},
		{Where: "random, 1 thread", Text: "only once"},
	}
	if got := ws.list(); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}

	var sweep warnings
	sweep.add("w", "", 1)
	sweep.add("w", "", 8)
	if got := sweep.list(); len(got) != 1 || got[0].Where != "1 and 8 threads" {
		t.Errorf("a sweep's points: %q", got)
	}
	if got := (&warnings{}).list(); got != nil {
		t.Errorf("no warning: %q", got)
	}
}
