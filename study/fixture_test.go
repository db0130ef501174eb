package study

import (
	"fmt"
	"testing"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/wire"
)

const (
	mib   = int64(1 << 20)
	block = 8 * mib
	total = 800 * mib
	// unit is the time grain of the fixtures: every duration is a
	// multiple of it, so scaling by 25/31 or 5/4 stays exact.
	unit = int64(31 * 4 * 1000)
)

// scale is a fraction that multiplies every duration of a point.
type scale struct{ num, den int64 }

// fixtureSweep builds a sweep of write, read and randread at the given
// thread counts on two gpfs nodes, 800 MiB fixed, every figure reduced
// by the real definitions. B's points are A's with each duration
// multiplied by speed[threads]: 25/31 makes every figure exactly 1.24×.
func fixtureSweep(t *testing.T, label string, threads []int, speed map[int]scale) *Sweep {
	t.Helper()
	s := &Sweep{Version: "0.1.0-test", Kind: Kind, Label: label, Threads: threads, Complete: true,
		Setup: Setup{Phases: settings.PhaseList{"write", "read", "randread"}, Sizing: SizingTotal, Total: total,
			BlockSize: block, RandBlockSize: 4096, Dir: "/gpfs/bench", Iterations: 1, Fsync: true}}
	for i, n := range threads {
		sc, ok := speed[n]
		if !ok {
			sc = scale{1, 1}
		}
		s.Points = append(s.Points, fixtureJob(t, label, n, int64(i), sc))
	}
	return s
}

func fixtureJob(t *testing.T, label string, n int, seq int64, sc scale) *result.Job {
	t.Helper()
	ranks := min(n, 2)
	job := &result.Job{Version: "0.1.0-test", JobID: fmt.Sprintf("fixture-%s-%d", label, n),
		CommandLine: "ioswarm sweep --threads 1..4 --total 800MiB --block 8MiB --phases write,read,randread",
		StartedAt:   fmt.Sprintf("2025-03-0%dT10:00:00Z", seq+1), Launcher: "ssh", Label: label, Complete: true,
		Config: result.Config{Threads: n, BlockSize: block, RandBlockSize: 4096, FileSize: total / int64(n),
			Total: total, Dir: "/gpfs/bench", Fsync: true, Phases: settings.PhaseList{"write", "read", "randread"},
			DropCaches: "auto", Ranks: ranks, Iterations: 1}}
	for r := 0; r < ranks; r++ {
		job.Hosts = append(job.Hosts, result.Host{Host: fmt.Sprintf("node%d", r+1), Rank: r,
			Threads: (n + ranks - 1 - r) / ranks, Kernel: "6.1.0-18-amd64", Arch: "amd64", FSType: "gpfs"})
	}
	// Base durations (in units) of the slowest thread per phase; more
	// threads go faster, sublinearly, as real filesystems do.
	base := map[settings.Phase]int64{"write": 4000, "read": 3000, "randread": 9000}
	for k, name := range job.Config.Phases {
		d := base[name] * 2 / int64(n+1)
		job.Phases = append(job.Phases, fixturePhase(t, job, name.String(), seq*100+int64(k)*10, d, sc))
	}
	return job
}

// fixturePhase gives thread i a start i units late and a duration of d
// minus 3i units, so threads differ as on a real system; sc stretches
// every interval of the phase alike. at places the phase, in seconds.
func fixturePhase(t *testing.T, job *result.Job, name string, at, d int64, sc scale) result.Phase {
	t.Helper()
	c := job.Config
	p := result.Phase{Name: name, Iteration: 1, CacheDrop: "drop_caches"}
	opSize := c.BlockSize
	if wire.Phase(name).CountsOps() {
		opSize = c.RandBlockSize
	}
	first := int64(-1)
	type span struct{ start, end int64 }
	spans := make([]span, c.Threads)
	for i := range spans {
		origin := at * 1_000_000_000
		start := origin + int64(i)*unit*sc.num/sc.den
		spans[i] = span{start, start + (d-int64(i)*3)*unit*sc.num/sc.den}
		if first < 0 || spans[i].end < first {
			first = spans[i].end
		}
	}
	for i, sp := range spans {
		done := c.FileSize * (first - sp.start) / (sp.end - sp.start) / opSize * opSize
		p.Threads = append(p.Threads, result.Thread{Host: job.Hosts[i%len(job.Hosts)].Host,
			Rank: i % len(job.Hosts), Thread: i, File: fmt.Sprintf("%s/ioswarm-%s/f%d", c.Dir, job.JobID, i),
			Bytes: c.FileSize, Ops: c.FileSize / opSize, StartNS: sp.start, EndNS: sp.end, BytesAtFirstDone: done})
	}
	if err := figures.Reduce(&p); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	p.TimedBytes = p.Bytes
	return p
}

// fixtures are the two systems the golden tests compare: B is 24% faster
// at 1 thread, equal at 2, 20% slower at 4, and alone at 8 threads.
func fixtures(t *testing.T) (a, b *Sweep) {
	a = fixtureSweep(t, "gen1", []int{1, 2, 4}, nil)
	b = fixtureSweep(t, "gen2", []int{1, 2, 4, 8}, map[int]scale{1: {25, 31}, 4: {5, 4}})
	return a, b
}
