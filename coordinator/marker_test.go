package coordinator

import (
	"strings"
	"testing"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/result"
	"ioswarm/wire"
)

// Nodes that do not see rank 0's marker: an explicit shift is a usage
// error naming them; auto reads on the writers, with a warning.
func TestNotSharedRefusesAnExplicitShift(t *testing.T) {
	j := jobOn("node1", "node2", "node3")
	j.id = "0123456789ab"
	seen := []wire.MarkerReply{{Seen: true}, {Seen: false}, {Seen: true}}
	blind := j.blindNodes(seen)
	if len(blind) != 1 || blind[0] != "node2" {
		t.Fatalf("blind nodes %v, want node2", blind)
	}
	j.o.ReadShift = 1
	err := j.notShared(blind)
	if !usage.Is(err) || !strings.Contains(err.Error(), "--read-shift 1") || !strings.Contains(err.Error(), "node2 cannot see") {
		t.Errorf("explicit shift: %v, want a usage error naming the flag and node2", err)
	}
	var log strings.Builder
	j.s.o.Log = launcher.NewLineWriter(&log)
	j.res = &result.Job{}
	j.o.ReadShift, j.o.Threads, j.shift = ReadShiftAuto, 3, 1
	j.cold.rotating = true
	if err := j.notShared(blind); err != nil {
		t.Fatalf("auto: %v", err)
	}
	if j.shift != 0 || j.cold.rotating || !j.cold.nodeLocal || len(j.res.Warnings) != 1 || !strings.Contains(j.res.Warnings[0], "not shared") {
		t.Errorf("auto: shift %d rotating %v node-local %v warnings %q", j.shift, j.cold.rotating, j.cold.nodeLocal, j.res.Warnings)
	}
	for tr, f := range j.sources {
		if tr != f {
			t.Errorf("auto: thread %d reads %d, want its own", tr, f)
		}
	}
}
