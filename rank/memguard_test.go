package rank

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/settings"
	"ioswarm/wire"
)

func TestMemGuardAdmit(t *testing.T) {
	var g memGuard
	defer g.setCap(0)
	if err := g.admit(1<<40, "a TiB"); err != nil {
		t.Errorf("no cap: %v", err)
	}
	g.setCap(1 << 50)
	if err := g.admit(1<<20, "a MiB"); err != nil {
		t.Errorf("far under the cap: %v", err)
	}
	g.setCap(residentBytes() + 64<<20)
	err := g.admit(1<<30, "write's buffers for 4 threads")
	if err == nil || !strings.Contains(err.Error(), "write's buffers for 4 threads (1024 MiB)") || !strings.Contains(err.Error(), "past its cap") {
		t.Errorf("a GiB over a cap 64 MiB above the rank: %v", err)
	}
}

func TestMemGuardWatchStopsThePhase(t *testing.T) {
	var g memGuard
	defer g.setCap(0)
	g.setCap(1) // below any process
	stop, done := new(atomic.Bool), make(chan struct{})
	ended := make(chan struct{})
	go func() { g.watch(stop, done); close(ended) }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		close(done)
		t.Fatal("the watch did not trip on a cap of one byte")
	}
	if !stop.Load() || g.err() == nil || !strings.Contains(g.err().Error(), "stopped before the node runs out of memory") {
		t.Errorf("after tripping: stop %v, err %v", stop.Load(), g.err())
	}
	// Under its cap the watch only ends with its phase.
	g.setCap(1 << 50)
	stop.Store(false)
	done2 := make(chan struct{})
	ended2 := make(chan struct{})
	go func() { g.watch(stop, done2); close(ended2) }()
	time.Sleep(3 * memPoll)
	close(done2)
	<-ended2
	if stop.Load() || g.err() != nil {
		t.Errorf("under the cap: stop %v, err %v", stop.Load(), g.err())
	}
}

func TestArmBytes(t *testing.T) {
	cases := []struct {
		p    phaseParams
		n    int
		want int64
	}{
		{phaseParams{name: wire.Write, block: 1 << 20, engine: settings.Sync, depth: 1}, 4, 4 << 20},
		{phaseParams{name: wire.Read, block: 1 << 20, engine: settings.IOUring, depth: 4}, 4, 4 * 5 << 20},
		{phaseParams{name: wire.RandWrite, block: 4096, engine: settings.Sync, depth: 1}, 2, 2 * patternPeriod},
		{phaseParams{name: wire.RandRead, block: 1000, engine: settings.Sync, depth: 1}, 3, 3 * 4096},
	}
	for _, c := range cases {
		if got := armBytes(&c.p, c.n); got != c.want {
			t.Errorf("%s block %d %s depth %d × %d: %d, want %d", c.p.name, c.p.block, c.p.engine, c.p.depth, c.n, got, c.want)
		}
	}
}

func TestParseStatm(t *testing.T) {
	page := int64(unix.Getpagesize())
	if got := parseStatm([]byte("1000 250 40 10 0 300 0\n")); got != 250*page {
		t.Errorf("statm: %d, want %d", got, 250*page)
	}
	if got := parseStatm([]byte("garbage")); got != 0 {
		t.Errorf("garbage: %d", got)
	}
	if residentBytes() <= 0 {
		t.Error("this process has no resident size")
	}
}
