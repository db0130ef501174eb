package resplan

import (
	"ioswarm/histogram"
	"ioswarm/settings"
	"slices"
)

// What a rank allocates, as package rank does it (see doc.go).
const (
	// rankBase is a rank process with no thread: the Go runtime, the
	// binary's text, the barrier connection's buffers and the replies it
	// encodes (a time series of up to 100,000 counts among them). A rank
	// of one thread peaked at 14 MB here.
	rankBase = 24 << 20
	// threadStack is what one benchmark thread costs besides its data: an
	// OS thread of its own (its touched stack pages and the kernel's
	// task), its goroutine's stack and its records. With its pattern and
	// histograms a thread of 4 KiB records measured ~290 KiB in all
	// (2,048 threads: 608 MB); the estimate gives ~430 KiB.
	threadStack = 64 << 10
	// patternBytes is a thread's data pattern (rank's patternPeriod).
	patternBytes = 64 << 10
	// pageSize rounds each mapped buffer.
	pageSize = 4 << 10
	// ringPerSlot is an io_uring slot: its submission and two completion
	// entries, its index and the loop's per-slot records.
	ringPerSlot = 128
	ringFixed   = 2 * pageSize
	// opLogMax is the most completion times a thread's log keeps
	// (rank's defaultLogEntries), 8 bytes each.
	opLogMax = 1 << 20
	// latencyIntervals bounds a random phase's intervals (an hour of
	// seconds, rank's maxLatencyIntervals); each older one is kept sparse,
	// sparseInterval bytes at most in practice, and recentHists full.
	latencyIntervals = 3600
	sparseInterval   = 8 << 10
	recentHists      = 9
	// heapFactor: what lives on the Go heap may take twice its size
	// before a collection (GOGC 100); mapped buffers do not.
	heapFactor = 2
)

// histBytes is one full latency histogram.
const histBytes = histogram.NumBuckets*8 + 64

// Memory is one rank's estimated peak, in bytes, by what holds it.
type Memory struct {
	Threads int
	// Buffers are the mapped I/O buffers: one per thread, and with
	// io_uring IODepth more; BufferSize is each one's size.
	Buffers, BufferSize int64
	Rings               int64 // io_uring rings
	Heap                int64 // patterns, histograms, op logs, with the heap's growth room
	Stacks              int64 // threads' stacks and kernel tasks
	Base                int64 // the process itself
}

// Total is the rank's whole estimate.
func (m Memory) Total() int64 { return m.Buffers + m.Rings + m.Heap + m.Stacks + m.Base }

// RankMemory estimates the peak memory of one rank running threads of
// the job's threads. A phase's buffers are freed before the next one's
// are made, so the peak is the largest phase's.
func RankMemory(j Job, threads int) Memory {
	n := int64(threads)
	m := Memory{Threads: threads, Base: rankBase, Stacks: n * threadStack}
	if threads == 0 {
		return m
	}
	m.BufferSize = roundUp(j.bufferSize(), pageSize)
	perThread := int64(1)
	if j.uring() {
		depth := int64(max(j.IODepth, 1))
		perThread += depth
		m.Rings = n * (depth*ringPerSlot + ringFixed)
	}
	m.Buffers = n * perThread * m.BufferSize
	patterns := int64(1)
	if j.ReadsOthers {
		patterns = 2
	}
	heap := n * (patterns*patternBytes + 2*histBytes + 8*j.opLogEntries())
	if j.randomPhases() {
		heap += recentHists*histBytes + j.intervals()*sparseInterval
	}
	if j.mdPhases() {
		heap += roundUp(j.MDSize, 512) * 2 // the file's data and its padded copy
	}
	m.Heap = heap * heapFactor
	return m
}

// bufferSize is the largest buffer any of the job's phases maps per
// slot: a record, or for randwrite of a block dividing the pattern's
// period a whole period (rank's bodyWindows).
func (j Job) bufferSize() int64 {
	var size int64
	if j.has(func(p settings.Phase) bool { return !p.CountsOps() }) {
		size = j.Block
	}
	if slices.Contains(j.Phases, settings.RandRead) {
		size = max(size, j.RandBlock)
	}
	if slices.Contains(j.Phases, settings.RandWrite) {
		b := j.RandBlock
		if b > 0 && b < patternBytes && patternBytes%b == 0 {
			b = patternBytes
		}
		size = max(size, b)
	}
	if j.mdPhases() {
		// A file's data and the copy a verified read is checked against.
		size = max(size, 4096, roundUp(2*j.MDSize, 4096))
	}
	return size
}

// opLogEntries is how many completion times a thread's log holds: one
// per operation of its largest phase, up to the log's bound.
func (j Job) opLogEntries() int64 {
	block := j.Block
	if j.randomPhases() && j.RandBlock > 0 && j.RandBlock < block {
		block = j.RandBlock
	}
	if block <= 0 {
		return 0
	}
	return min(j.FileSize/block, opLogMax)
}

// intervals is how many one-second latency intervals a random phase
// keeps at most.
func (j Job) intervals() int64 {
	if j.RandTime <= 0 {
		return latencyIntervals
	}
	return min(int64(j.RandTime.Seconds())+1, latencyIntervals)
}
