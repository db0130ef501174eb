package resplan

import (
	"ioswarm/settings"
	"testing"
	"time"
)

const (
	KiB = int64(1) << 10
	MiB = int64(1) << 20
	GiB = int64(1) << 30
)

func TestRankMemoryBuffers(t *testing.T) {
	cases := []struct {
		name    string
		job     Job
		threads int
		size    int64 // each buffer
		buffers int64
		rings   bool
	}{
		{"sync sequential", Job{FileSize: GiB, Block: 16 * MiB, RandBlock: 4 * KiB, Phases: []settings.Phase{"write", "read"}},
			4, 16 * MiB, 4 * 16 * MiB, false},
		{"io_uring depth 4096 of 1 MiB (the 13 GB rank)", Job{FileSize: GiB, Block: MiB, RandBlock: 4 * KiB, Phases: []settings.Phase{"write", "read"}, Engine: "io_uring", IODepth: 4096},
			64, MiB, 64 * 4097 * MiB, true},
		{"io_uring depth 32 random reads", Job{FileSize: GiB, Block: 16 * MiB, RandBlock: 4 * KiB, Phases: []settings.Phase{"randread"}, Engine: "io_uring", IODepth: 32},
			8, 4 * KiB, 8 * 33 * 4 * KiB, true},
		{"randwrite of 4 KiB maps a pattern period", Job{FileSize: GiB, Block: 16 * MiB, RandBlock: 4 * KiB, Phases: []settings.Phase{"randwrite"}},
			2, 64 * KiB, 2 * 64 * KiB, false},
		{"the largest phase's record counts", Job{FileSize: GiB, Block: MiB, RandBlock: 2 * MiB, Phases: []settings.Phase{"write", "randread"}},
			3, 2 * MiB, 3 * 2 * MiB, false},
		{"metadata files of 3901 bytes: data and its copy", Job{FileSize: GiB, Block: 16 * MiB, MDSize: 3901, Phases: []settings.Phase{"mdcreate", "mdread"}},
			2, 8 * KiB, 2 * 8 * KiB, false},
		{"records round up to pages", Job{FileSize: MiB, Block: 1000, RandBlock: 512, Phases: []settings.Phase{"write"}},
			1, 4 * KiB, 4 * KiB, false},
	}
	for _, c := range cases {
		m := RankMemory(c.job, c.threads)
		if m.BufferSize != c.size || m.Buffers != c.buffers {
			t.Errorf("%s: buffers %d of %d, want %d of %d", c.name, m.Buffers, m.BufferSize, c.buffers, c.size)
		}
		if (m.Rings > 0) != c.rings {
			t.Errorf("%s: rings %d", c.name, m.Rings)
		}
		if m.Total() < m.Buffers+m.Base+int64(c.threads)*threadStack {
			t.Errorf("%s: total %d below its parts %+v", c.name, m.Total(), m)
		}
	}
}

func TestRankMemoryThreadState(t *testing.T) {
	seq := Job{FileSize: GiB, Block: 16 * MiB, RandBlock: 4 * KiB, Phases: []settings.Phase{"write", "read"}}
	if m := RankMemory(seq, 0); m.Total() != rankBase {
		t.Errorf("a rank without threads: %d, want the base %d", m.Total(), rankBase)
	}
	one, two := RankMemory(seq, 1), RankMemory(seq, 2)
	if two.Total()-one.Total() != one.Total()-rankBase {
		t.Errorf("a thread more should cost what the first did: 1 → %d, 2 → %d", one.Total(), two.Total())
	}
	// 1 GiB of 4 KiB operations: a log entry per operation, 262144 of them.
	rnd := seq
	rnd.Phases = []settings.Phase{"randread"}
	rnd.RandTime = 10 * time.Second
	r := RankMemory(rnd, 1)
	if min := int64(8 * 262144 * heapFactor); r.Heap < min {
		t.Errorf("random 4 KiB over 1 GiB: heap %d, below its op log %d", r.Heap, min)
	}
	// The log has a bound: a huge file costs no more than it.
	huge := rnd
	huge.FileSize = 1 << 50
	if h := RankMemory(huge, 1).Heap; h > 2*heapFactor*8*opLogMax {
		t.Errorf("op log unbounded: heap %d", h)
	}
	// An unbounded random phase keeps up to an hour of intervals.
	long := rnd
	long.RandTime = 0
	if RankMemory(long, 1).Heap <= r.Heap {
		t.Error("an unbounded random phase should plan for more intervals than a 10 s one")
	}
	// Reading another thread's file takes a second pattern.
	shift := seq
	shift.ReadsOthers = true
	if d := RankMemory(shift, 1).Heap - RankMemory(seq, 1).Heap; d != patternBytes*heapFactor {
		t.Errorf("--read-shift adds %d, want one pattern %d", d, patternBytes*heapFactor)
	}
}

func TestCap(t *testing.T) {
	need := RankMemory(Job{FileSize: GiB, Block: 16 * MiB, Phases: []settings.Phase{"write"}}, 4).Total()
	if c := Cap(need, need, 0); c != 2*need+capSlack {
		t.Errorf("unknown room: cap %d, want twice the estimate and slack", c)
	}
	if c := Cap(need, need, 100*GiB); c != 2*need+capSlack {
		t.Errorf("plenty of room: cap %d", c)
	}
	// Four such ranks on a kernel with 1 GiB: a quarter each.
	if c := Cap(need, 4*need, GiB); c != GiB/4 {
		t.Errorf("little room: cap %d, want %d", c, GiB/4)
	}
	// Uneven ranks share in proportion: one of three times another's
	// need gets three quarters.
	if c := Cap(3*need, 4*need, GiB); c != GiB/4*3 {
		t.Errorf("uneven ranks: cap %d, want %d", c, GiB/4*3)
	}
	// A plan that fits leaves every rank at least its estimate.
	if c := Cap(need, 5*need, 5*need); c < need {
		t.Errorf("a plan that fits: cap %d below the estimate %d", c, need)
	}
}
