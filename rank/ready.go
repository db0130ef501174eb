package rank

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"ioswarm/histogram"
)

// What a rank readies before a phase's window opens, so that nothing of it
// is charged to the filesystem: buffers with every page touched, and a P
// for every benchmark thread.

// prepare gives every worker a fresh histogram, a sized operation log and
// a buffer with every page touched: first-touch faults inside the window
// would be charged to the filesystem, and right after a cache drop they
// are slow on virtual machines.
func (s *state) prepare(p *phaseParams) ([][]byte, error) {
	bufs, err := alignedBuffers(len(s.workers), p.bufferSize())
	if err != nil {
		return nil, err
	}
	s.latency.reset()
	for i, w := range s.workers {
		w.hist = histogram.New()
		w.interval.reset()
		w.pat.fill(bufs[i], 0)
		// Sized now, so the phase's own reset allocates nothing.
		w.log.reset(w.size/p.block, defaultLogEntries)
	}
	return bufs, nil
}

// spareProcs is how many Ps the rank keeps beyond one per benchmark
// thread: for its session (replies, heartbeats) and progress reporter.
const spareProcs = 2

// ensureProcs gives every benchmark thread a P of its own. Each thread is
// a goroutine locked to an OS thread that spends its life in blocking
// system calls; with fewer Ps than threads (GOMAXPROCS defaults to the
// core count) a thread returning from a call waits for a P, which the
// runtime takes back from a thread in a call only when its monitor next
// looks (up to 10 ms when idle). On 2 cores that halved 16-thread random
// IOPS, added ~80 ms of start skew and tens of ms of tail latency. With a
// P each, threads are scheduled by the kernel alone, as fio's are. And
// since a phase's calls are raw (rawcall.go), a worker keeps its P even
// while it blocks: without one each, workers and the session would wait
// for each other's calls. It only ever raises GOMAXPROCS; the rank
// process runs nothing else.
func ensureProcs(threads int) {
	if n := threads + spareProcs; runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
}

// alignedBuffers maps page-aligned buffers, as O_DIRECT requires, before
// the timed window. Large ones are asked to live on huge pages: O_DIRECT
// hands the device the buffer's physical pages, and 4 KiB pages scattered
// in memory cut a 16 MiB record into requests of a few hundred KiB (the
// device takes a bounded number of segments per request), where 2 MiB
// pages let it build requests as large as it accepts. Best effort: where
// transparent huge pages are off, the advice is ignored.
func alignedBuffers(n int, size int64) ([][]byte, error) {
	bufs := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			freeBuffers(bufs)
			return nil, fmt.Errorf("allocate %d buffers of %d bytes: %w", n, size, err)
		}
		if size >= hugePage {
			_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
		}
		bufs = append(bufs, b)
	}
	return bufs, nil
}

// hugePage is the size of a transparent huge page on x86-64 and arm64
// with 4 KiB base pages; smaller buffers cannot use one.
const hugePage = 2 << 20

func freeBuffers(bufs [][]byte) {
	for _, b := range bufs {
		_ = unix.Munmap(b)
	}
}
