package figures

import (
	"fmt"

	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// FirstDoneNote says why a phase's first-done bandwidth is not reported,
// or returns "" when it is. Buffered writes with fsync are the one case:
// first-done counts the bytes every thread had written when the first
// thread ended, after its fsync, but the other threads' bytes were then in
// the page cache, not on the filesystem (measured: 98-100% of them), so the
// figure came out 1.3-1.7 × the job's own bandwidth, a memory figure next
// to a durable one. IOzone's stonewalled write figure is no equivalent
// either: it stops the threads before the first one's fsync and has each
// fsync its partial file inside its own time. O_DIRECT, O_SYNC and
// O_DSYNC writes reach the filesystem call by call (callByCall) and writes
// without fsync are page-cache figures throughout, so both keep the
// figure.
func FirstDoneNote(phase string, callByCall, fsync bool) string {
	if !fsync || callByCall || !wire.Phase(phase).IsWrite() {
		return ""
	}
	return "not reported for buffered writes with fsync: when the first thread ended (after its fsync) " +
		"the others' bytes were still in the page cache, not on the filesystem"
}

// fsyncTotals is what one pass over the threads yields for the fsync figures.
type fsyncTotals struct {
	hist          *histogram.Histogram // timed fsyncs; nil when none
	fsync, thread float64              // Σ fsync_ns, Σ (end − start)
}

// add checks that th's fsync and close lie inside its timed window d
// and adds them to f.
func (f *fsyncTotals) add(th *result.Thread, d int64) error {
	if th.FsyncNS < 0 || th.CloseNS < 0 || th.FsyncNS > d || th.CloseNS > d-th.FsyncNS {
		return fmt.Errorf("fsync_ns %d and close_ns %d do not fit in the thread's %d ns", th.FsyncNS, th.CloseNS, d)
	}
	if th.FsyncNS > 0 {
		if f.hist == nil {
			f.hist = histogram.New()
		}
		f.hist.Record(th.FsyncNS)
		f.fsync += float64(th.FsyncNS)
	}
	f.thread += float64(d)
	return nil
}

// figures returns the fsync latency (nil when no fsync was timed) and the
// share of the threads' timed time spent in fsync.
func (f *fsyncTotals) figures() (*result.Latency, float64) {
	if f.hist == nil {
		return nil, 0
	}
	return &result.Latency{
		P50:  f.hist.Quantile(0.50),
		P99:  f.hist.Quantile(0.99),
		P999: f.hist.Quantile(0.999),
		Max:  f.hist.Max(),
	}, f.fsync / f.thread
}
