package iozone

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/settings"
)

// Child is one IOzone child (one ioswarm thread) as IOzone accounts it.
type Child struct {
	Thread     int
	Host       string
	Xfer       float64 // kB (1024 bytes), or operations with -O
	Throughput float64 // Xfer per second of the child's own time
	Stopped    bool    // stonewalled: Xfer counts only what was done by the first child's end
	CPU        CPUUse  // -+u: the child's wall and CPU time (childCPU)
}

// Report holds IOzone's lines for one phase, computed from ioswarm's
// thread records. Rates are per second in Unit ("kB" or "ops").
type Report struct {
	Phase     string // ioswarm phase name
	Label     string // IOzone's test name in its lines ("initial writers")
	Row       string // IOzone's row name in the -R table ("Initial write")
	Children  int
	Unit      string
	Stonewall bool

	ChildrenSee float64 // Σ of the children's throughputs
	ParentSees  float64 // Σ Xfer over the parent's elapsed time
	Min, Max    float64 // least and greatest child throughput
	Avg         float64 // ChildrenSee / Children
	MinXfer     float64 // least Xfer of any child
	Child       []Child // in thread order
	CPU         CPUUse  // -+u: Σ the children's CPU time over the longest wall time (testCPU)

	// ioswarm's own figures over the global window (latest end − earliest
	// start): Bandwidth in bytes/s, IOPS in operations/s.
	Bandwidth float64
	IOPS      float64
	// CacheNote is set when the stonewalled lines count bytes that were
	// still in the page cache (result.Phase.FirstDoneNote).
	CacheNote string
	// Dropped is how ioswarm emptied the page cache before a reading test
	// (drop_caches, or fadvise on the job's files); empty where it did
	// not. IOzone never does: the same command line there reads, where
	// the files fit in memory, what the writers left in the page cache.
	Dropped settings.DropMethod
}

// Lines computes IOzone's report lines for phase p.
//
// With stonewall (IOzone's default), when the phase ran under the live
// first-done stop (its records hold stonewall_end_ns), each child is
// IOzone's account of it, taken as the run went: its Xfer is what it had
// completed when the stop reached it (stonewall_bytes; all of it for the
// child that raised the stop) and its time runs from its start to the end
// of its own fsync and close (stonewall_end_ns). Parent sees then runs to
// the last child's exit: the end of its timed part, or of the rest of its
// file written untimed. Records from a run without the live stop (an
// older file) are accounted after the fact instead: every child but the
// first to finish counts what it had completed by the first thread's end
// (bytes_at_first_done, exact at record granularity) over its own start
// to that moment, and Parent sees runs over the global window, except for
// read phases, where it ends at the first thread's end.
// Without stonewall (-x) every child is its bytes over its own time, so
// Children see equals the phase's sum_of_rates. With opsPerSec, Xfer
// counts operations (after the fact, a stonewalled child's share of its
// operations in proportion to its bytes) instead of kB.
func Lines(p *result.Phase, stonewall, opsPerSec bool) (Report, error) {
	t, ok := testFor(p.Name)
	if !ok {
		return Report{}, fmt.Errorf("phase %q has no IOzone test", p.Name)
	}
	threads, err := sortedThreads(p.Threads)
	if err != nil {
		return Report{}, fmt.Errorf("phase %s: %w", p.Name, err)
	}
	r := Report{Phase: p.Name, Label: t.label, Row: t.row, Children: len(threads), Unit: "kB", Stonewall: stonewall}
	if opsPerSec {
		r.Unit = "ops"
	}
	live := stonewall && liveStop(threads)
	if stonewall && !live {
		r.CacheNote = p.FirstDoneNote
	}
	if t.reads && (p.CacheDrop == settings.DropCaches || p.CacheDrop == settings.DropFadvise) {
		r.Dropped = p.CacheDrop
	}
	w := spanOf(threads)
	var xfers float64
	for i := range threads {
		c := child(&threads[i], w.firstDone, stonewall, opsPerSec)
		if live {
			c = liveChild(&threads[i], opsPerSec)
		}
		c.CPU = childCPU(&threads[i])
		r.Child = append(r.Child, c)
		r.ChildrenSee += c.Throughput
		xfers += c.Xfer
		if i == 0 {
			r.Min, r.Max, r.MinXfer = c.Throughput, c.Throughput, c.Xfer
		}
		r.Min, r.Max, r.MinXfer = min(r.Min, c.Throughput), max(r.Max, c.Throughput), min(r.MinXfer, c.Xfer)
	}
	r.Avg = r.ChildrenSee / float64(len(threads))
	r.CPU = testCPU(r.Child)
	parentEnd := w.lastEnd
	switch {
	case live:
		parentEnd = w.lastExit
	case stonewall && t.reads:
		parentEnd = w.firstDone
	}
	r.ParentSees = figures.PerSecond(xfers, parentEnd-w.firstStart)
	r.Bandwidth = figures.Rate(w.bytes, w.lastEnd-w.firstStart)
	r.IOPS = figures.Rate(w.ops, w.lastEnd-w.firstStart)
	return r, nil
}

// window is what the whole phase spans.
type window struct {
	firstStart, firstDone, lastEnd int64
	lastExit                       int64 // the last end of any thread's work, timed or not
	bytes, ops                     int64
}

func spanOf(threads []result.Thread) window {
	w := window{firstStart: math.MaxInt64, firstDone: math.MaxInt64, lastEnd: math.MinInt64, lastExit: math.MinInt64}
	for _, th := range threads {
		w.firstStart = min(w.firstStart, th.StartNS)
		w.firstDone = min(w.firstDone, th.EndNS)
		w.lastEnd = max(w.lastEnd, th.EndNS)
		w.lastExit = max(w.lastExit, th.EndNS, th.StonewallEndNS, th.UntimedEndNS)
		w.bytes += th.Bytes
		w.ops += th.Ops
	}
	return w
}

// child accounts one thread as IOzone accounts a child.
func child(th *result.Thread, firstDone int64, stonewall, opsPerSec bool) Child {
	c := Child{Thread: th.Thread, Host: th.Host}
	bytes, ops, end := float64(th.Bytes), float64(th.Ops), th.EndNS
	if stonewall && th.EndNS > firstDone {
		c.Stopped = true
		end = firstDone
		if th.Bytes > 0 {
			ops = ops * float64(th.BytesAtFirstDone) / bytes
		}
		bytes = float64(th.BytesAtFirstDone)
	}
	c.Xfer = bytes / 1024
	if opsPerSec {
		c.Xfer = ops
	}
	c.Throughput = figures.PerSecond(c.Xfer, end-th.StartNS)
	return c
}

// sortedThreads checks the records and returns them in thread order.
func sortedThreads(in []result.Thread) ([]result.Thread, error) {
	if len(in) == 0 {
		return nil, errors.New("no thread records")
	}
	out := append([]result.Thread(nil), in...)
	for i := range out {
		th := &out[i]
		switch {
		case th.EndNS <= th.StartNS:
			return nil, fmt.Errorf("thread %d: end %d is not after start %d", th.Thread, th.EndNS, th.StartNS)
		case th.Bytes < 0 || th.Ops < 0:
			return nil, fmt.Errorf("thread %d: negative bytes or operations", th.Thread)
		case th.StonewallBytes < 0 || th.StonewallBytes > th.Bytes || th.StonewallOps < 0 || th.StonewallOps > th.Ops:
			return nil, fmt.Errorf("thread %d: stonewall_bytes %d or stonewall_ops %d outside its bytes %d and ops %d",
				th.Thread, th.StonewallBytes, th.StonewallOps, th.Bytes, th.Ops)
		case th.StonewallEndNS != 0 && th.StonewallEndNS <= th.StartNS:
			return nil, fmt.Errorf("thread %d: stonewall_end_ns %d is not after start %d", th.Thread, th.StonewallEndNS, th.StartNS)
		case th.BytesAtFirstDone < 0 || th.BytesAtFirstDone > th.Bytes:
			return nil, fmt.Errorf("thread %d: bytes_at_first_done %d outside [0, %d]", th.Thread, th.BytesAtFirstDone, th.Bytes)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Thread < out[j].Thread })
	return out, nil
}
