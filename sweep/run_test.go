package sweep

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/settings"
	"ioswarm/study"
)

func baseOptions(t *testing.T) coordinator.Workload {
	return coordinator.Workload{Dir: t.TempDir(), Total: 64 << 20, Block: 4 << 20, RandBlock: 4096,
		Phases: settings.PhaseList{"write", "read"}, DropCaches: "auto", Iterations: 1,
		Version: "test", Label: "lab"}
}

// local is two ranks on this machine.
var local = coordinator.Launch{LocalRanks: 2, HeartbeatTimeout: 5 * time.Second}

// Every point is validated on its own copy: the aggregate is divided
// among each point's threads, and the base options are left alone.
func TestPointsDivideTheAggregate(t *testing.T) {
	base := baseOptions(t)
	points, err := Points(base, local, []int{1, 2, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{64 << 20, 32 << 20, 16 << 20} {
		if points[i].FileSize != want || points[i].Total != 64<<20 {
			t.Errorf("point %d: file size %d total %d, want %d and %d", i, points[i].FileSize, points[i].Total, want, 64<<20)
		}
	}
	if base.FileSize != 0 || base.Threads != 0 {
		t.Errorf("base options changed: %+v", base)
	}
}

func TestPointsFixedFileSize(t *testing.T) {
	base := baseOptions(t)
	base.Total, base.FileSize = 0, 8<<20
	points, err := Points(base, local, []int{1, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if points[0].Total != 8<<20 || points[1].Total != 32<<20 || points[1].FileSize != 8<<20 {
		t.Errorf("got totals %d, %d", points[0].Total, points[1].Total)
	}
	sw := Plan{Base: base, Threads: []int{1, 4}}.NewSweep()
	if sw.Setup.Sizing != study.SizingFileSize || sw.Setup.FileSize != 8<<20 || sw.Setup.Total != 0 {
		t.Errorf("setup %+v", sw.Setup)
	}
}

// A point that cannot run fails the whole sweep up front, naming the
// point, as a usage error (exit code 2, nothing started).
func TestPointsNameTheBadPoint(t *testing.T) {
	_, err := Points(baseOptions(t), local, []int{1, 2, 32}, nil)
	if err == nil || !strings.Contains(err.Error(), "sweep point of 32 threads") || !usage.Is(err) {
		t.Fatalf("error %v (usage %v)", err, usage.Is(err))
	}
	_, err = Points(baseOptions(t), local, []int{3}, nil)
	if err == nil || !strings.Contains(err.Error(), "3 threads") || !strings.Contains(err.Error(), "does not divide") {
		t.Fatalf("error %v", err)
	}
	if _, err := Points(baseOptions(t), local, nil, nil); err == nil || !usage.Is(err) {
		t.Fatalf("empty list: %v", err)
	}
}

// A depth sweep is every thread count at every depth, each validated:
// depths past 1 need io_uring.
func TestPointsOverDepths(t *testing.T) {
	base := baseOptions(t)
	base.Engine = "io_uring"
	points, err := Points(base, local, []int{1, 2}, []int{1, 8})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range points {
		got = append(got, fmt.Sprintf("%d@%d", o.Threads, o.IODepth))
	}
	if strings.Join(got, " ") != "1@1 1@8 2@1 2@8" {
		t.Errorf("points %v", got)
	}
	base.Engine = "sync"
	if _, err := Points(base, local, []int{1}, []int{1, 8}); err == nil || !strings.Contains(err.Error(), "1 thread at iodepth 8") {
		t.Errorf("depth 8 on the sync engine: %v", err)
	}
}
