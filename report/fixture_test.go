package report

import (
	"testing"

	"ioswarm/figures"
	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/settings"
)

const (
	ms  = int64(1e6)
	sec = int64(1e9)
	mib = int64(1 << 20)
	// base is the coordinator-clock moment the first phase starts.
	base = 5_000_000 * sec
)

// timing is one thread's start and end offset from a phase's start, and
// the bytes it had completed when the first thread finished.
type timing struct{ start, end, atFirstDone int64 }

// phase builds a phase of 4 threads placed round-robin on node1 and node2
// and reduces it with the real figure definitions.
func phase(t *testing.T, name string, iter int, at int64, perThread, ops int64, ts [4]timing, h *histogram.Histogram) result.Phase {
	t.Helper()
	p := result.Phase{Name: name, Iteration: iter, CacheDrop: "drop_caches"}
	for i, tm := range ts {
		host, rank := "node1", 1
		if i%2 == 1 {
			host, rank = "node2", 2
		}
		p.Threads = append(p.Threads, result.Thread{Host: host, Rank: rank, Thread: i,
			File:  "/scratch/bench/ioswarm-20250101T120000-1a2b3c/f" + string(rune('0'+i)),
			Bytes: perThread, Ops: ops, StartNS: at + tm.start, EndNS: at + tm.end, BytesAtFirstDone: tm.atFirstDone})
	}
	if name == "write" {
		// A quarter of each writer's time in fsync: a share of 25%.
		for i := range p.Threads {
			th := &p.Threads[i]
			th.FsyncNS, th.CloseNS = (th.EndNS-th.StartNS)/4, ms/10
		}
	}
	if h != nil {
		p.Histogram = h.Sparse()
	}
	// fixtureJob's configuration: buffered, with fsync.
	p.FirstDoneNote = figures.FirstDoneNote(name, false, true)
	if err := figures.Reduce(&p); err != nil {
		t.Fatalf("fixture phase %s %d: %v", name, iter, err)
	}
	return p
}

// recordLatencies returns a histogram of 16 records per thread taking
// 90 ms plus k ms, a deterministic stand-in for per-record latency.
func recordLatencies() *histogram.Histogram {
	h := histogram.New()
	for k := range int64(16) {
		h.Record(90*ms + k*ms)
	}
	return h
}

// randLatencies is 8000 operations between 50 µs and 150 µs with every
// 500th taking 5 ms: deterministic, and with a visible tail.
func randLatencies(shift int64) *histogram.Histogram {
	h := histogram.New()
	for k := range int64(8000) {
		v := 50_000 + (k*7919)%100_000 + shift
		if k%500 == 0 {
			v = 5 * ms
		}
		h.Record(v)
	}
	return h
}

func fixtureJob(t *testing.T) *result.Job {
	t.Helper()
	job := &result.Job{
		Version: "0.1.0-test", JobID: "20250101T120000-1a2b3c",
		CommandLine: "ioswarm run --hosts node[1-2] --threads 4 --file-size 64MiB --iterations 2 --stonewall 1s",
		StartedAt:   "2025-01-01T12:00:00Z", Launcher: "ssh", Label: "nfs-test", Complete: true,
		Config: result.Config{Threads: 4, BlockSize: 16 * mib, RandBlockSize: 4096, FileSize: 64 * mib,
			Total: 256 * mib, Dir: "/scratch/bench", Fsync: true, Phases: settings.PhaseList{"write", "read", "randread"},
			DropCaches: "auto", Ranks: 2, Iterations: 2, StonewallNS: sec},
		Hosts: []result.Host{
			{Host: "node1", Rank: 1, Threads: 2, Kernel: "6.1.0-18-amd64", Arch: "amd64", FSType: "nfs4", ClockOffsetNS: 1234, ClockErrorNS: 15_000},
			{Host: "node2", Rank: 2, Threads: 2, Kernel: "6.1.0-18-amd64", Arch: "amd64", FSType: "nfs4", ClockOffsetNS: -98_765, ClockErrorNS: 22_500},
		},
		Warnings: []string{"node2: /proc/sys/vm/drop_caches not writable; used posix_fadvise(DONTNEED) per file"},
	}
	w := 64 * mib
	job.Phases = []result.Phase{
		phase(t, "write", 1, base, w, 4, [4]timing{{0, 400 * ms, w}, {2 * ms, 450 * ms, 48 * mib}, {1 * ms, 420 * ms, 48 * mib}, {3 * ms, 500 * ms, 32 * mib}}, recordLatencies()),
		phase(t, "write", 2, base+sec, w, 4, [4]timing{{0, 380 * ms, 48 * mib}, {1 * ms, 370 * ms, w}, {2 * ms, 440 * ms, 48 * mib}, {1 * ms, 410 * ms, 48 * mib}}, recordLatencies()),
		phase(t, "read", 1, base+2*sec, w, 4, [4]timing{{0, 200 * ms, w}, {1 * ms, 210 * ms, 48 * mib}, {0, 205 * ms, 48 * mib}, {2 * ms, 230 * ms, 48 * mib}}, nil),
		phase(t, "read", 2, base+3*sec, w, 4, [4]timing{{0, 190 * ms, 48 * mib}, {1 * ms, 180 * ms, w}, {1 * ms, 200 * ms, 48 * mib}, {0, 220 * ms, 32 * mib}}, nil),
		phase(t, "randread", 1, base+4*sec, 2000*4096, 2000, [4]timing{{0, sec, 2000 * 4096}, {1 * ms, sec + 1*ms, 1990 * 4096}, {0, sec + 2*ms, 1995 * 4096}, {2 * ms, sec + 3*ms, 1980 * 4096}}, randLatencies(0)),
		phase(t, "randread", 2, base+6*sec, 2000*4096, 2000, [4]timing{{0, sec + 1*ms, 1999 * 4096}, {1 * ms, sec, 2000 * 4096}, {0, sec + 5*ms, 1990 * 4096}, {1 * ms, sec + 2*ms, 1997 * 4096}}, randLatencies(3_000)),
	}
	job.Phases[3].ResidentFraction = 0.031
	// The first read untouched on both nodes; the second found node2's
	// client cache warm (a reread on a filesystem caching outside the
	// page cache), with the warning the coordinator gives it.
	job.Phases[2].CacheVerdict, job.Phases[2].CacheReason = result.VerdictStorage, "storage on every node (untouched)"
	job.Phases[2].CacheVerdicts = []result.NodeVerdict{
		{Host: "node1", Rank: 1, Verdict: result.VerdictStorage, Reason: "untouched", Detail: "this node never wrote or read these bytes before"},
		{Host: "node2", Rank: 2, Verdict: result.VerdictStorage, Reason: "untouched", Detail: "this node never wrote or read these bytes before"}}
	job.Phases[3].CacheVerdict = result.VerdictMaybeCache
	job.Phases[3].CacheReason = "may come from a cache on 1 of 2 node(s): node2: touched before (client-cache)"
	job.Phases[3].CacheVerdicts = []result.NodeVerdict{
		{Host: "node1", Rank: 1, Verdict: result.VerdictStorage, Reason: "untouched", Detail: "this node never wrote or read these bytes before"},
		{Host: "node2", Rank: 2, Verdict: result.VerdictMaybeCache, Reason: "client-cache", Detail: "touched before"}}
	job.Phases[3].Warnings = []string{"read: cache verdict maybe-cache: the figure " + job.Phases[3].CacheReason}
	job.Warnings = append(job.Warnings, job.Phases[3].Warnings...)
	for _, i := range []int{4, 5} {
		job.Phases[i].Stonewalled = true
		job.Phases[i].TimedBytes = job.Phases[i].Bytes
	}
	return job
}

// incompleteJob is the fixture cut short after its first phase.
func incompleteJob(t *testing.T) *result.Job {
	job := fixtureJob(t)
	job.Complete = false
	job.Error = "rank 2 on node2: no heartbeat for 5s"
	job.Phases = job.Phases[:1]
	job.Warnings = nil
	return job
}
