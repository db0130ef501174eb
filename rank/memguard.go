package rank

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/settings"
)

// memGuard keeps a rank below the memory cap the resource plan gave it:
// a rank that grows past every estimate fails with an error of its own,
// naming the cap, instead of growing until the kernel's OOM killer ends
// it (or, on a shared node, someone else's process). Two checks: before
// a phase maps its buffers (admit), and while it runs (watch), on the
// process's resident size.
type memGuard struct {
	capBytes int64 // 0: no cap
	tripped  atomic.Pointer[error]
}

// memPoll is how often a running phase's resident size is read: fast
// enough that a rank growing at GB/s stops a few hundred MB past its cap.
const memPoll = 100 * time.Millisecond

// setCap takes the job's cap, and makes it the Go runtime's soft limit
// too, so the collector works harder before the hard check trips.
func (g *memGuard) setCap(capBytes int64) {
	g.capBytes = capBytes
	g.tripped.Store(nil)
	if capBytes <= 0 {
		capBytes = math.MaxInt64 // a session's next job may have none
	}
	debug.SetMemoryLimit(capBytes)
}

// threadStateBytes is what a thread's setup allocates: its data pattern
// and the pattern of the file it reads, and its latency histograms.
const threadStateBytes = 4 * patternPeriod

// admit refuses to take more bytes (what is about to be mapped) when the
// rank would then be past its cap.
func (g *memGuard) admit(more int64, what string) error {
	if g.capBytes <= 0 {
		return nil
	}
	now := residentBytes()
	if now+more <= g.capBytes {
		return nil
	}
	return fmt.Errorf("rank memory: %s (%d MiB) would take this rank from %d MiB to %d MiB, past its cap of %d MiB (the resource plan's estimate with room, within the node's available memory): use fewer threads per node, a smaller --iodepth or --block",
		what, more>>20, now>>20, (now+more)>>20, g.capBytes>>20)
}

// watch reads the resident size until done; past the cap it records why
// and sets stop, which ends the phase's workers.
func (g *memGuard) watch(stop *atomic.Bool, done <-chan struct{}) {
	if g.capBytes <= 0 {
		return
	}
	// One open file and one buffer for the phase: the watch allocates
	// nothing while the phase's collector is held off (see holdGC).
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return
	}
	defer f.Close()
	var buf [128]byte
	t := time.NewTicker(memPoll)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			n, _ := f.ReadAt(buf[:], 0)
			if rss := parseStatm(buf[:n]); rss > g.capBytes {
				err := fmt.Errorf("rank memory: %d MiB resident, past this rank's cap of %d MiB (the resource plan's estimate with room, within the node's available memory): stopped before the node runs out of memory",
					rss>>20, g.capBytes>>20)
				g.tripped.CompareAndSwap(nil, &err)
				stop.Store(true)
				return
			}
		}
	}
}

// err is why watch stopped the phase, or nil.
func (g *memGuard) err() error {
	if e := g.tripped.Load(); e != nil {
		return *e
	}
	return nil
}

// residentBytes is this process's resident set size (0 when unknown).
func residentBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	return parseStatm(data)
}

// parseStatm reads the resident size from /proc/self/statm ("size
// resident shared ...", in pages) without allocating.
func parseStatm(data []byte) int64 {
	_, rest, ok := bytes.Cut(data, []byte(" "))
	if !ok {
		return 0
	}
	var pages int64
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		pages = pages*10 + int64(c-'0')
	}
	return pages * int64(unix.Getpagesize())
}

// armBytes is what arming phase p maps for n workers: a buffer each, and
// with io_uring a buffer per slot of each ring.
func armBytes(p *phaseParams, n int) int64 {
	size := p.bufferSize()
	page := int64(unix.Getpagesize())
	size = (size + page - 1) / page * page
	per := int64(1)
	if p.engine == settings.IOUring {
		per += int64(p.depth)
	}
	return int64(n) * per * size
}
