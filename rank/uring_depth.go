package rank

import "ioswarm/wire"

// kernelDepth is the depth a ring loop achieved as the kernel held it:
// requests handed to the kernel and not yet posted to the completion
// queue (uring.Ring.InKernel), reaped or not. The ring's own slots count
// a request as in flight until it is reaped, which holds them at the
// depth asked whatever the kernel had: they cannot show a shortfall.
//
// Two figures: the count at each request's submission, counting that
// request (what a device queue just refilled holds), and its mean over
// time from the loop's first entry into the kernel to its last return.
type kernelDepth struct {
	sum, samples int64 // Σ the count at each submission, and how many
	max          int
	area         int64 // ∫ count dt over [first, last], in request-ns
	first, last  int64 // the first entry's start (0 before it), the last one's return
	held         int   // the count after the last entry
}

// entered accounts one entry into the kernel: it began at t0 with before
// requests held, submitted n, returned at t1 with after held, and waited
// for a completion or not.
//
// On a ring with deferred completions (uring.Ring.Deferred) the kernel
// posts only inside an entry, and there only after it has taken the
// entry's submissions, so the k-th of them found before+k (itself
// counted) in the kernel: exact. Over time, what an entry posted is taken
// as posted at its return. An entry that waited is counted at before+n
// throughout: it took its few requests (one, or a retry or two) at once
// and posted when the wait ended, at its return. An entry that waited
// for nothing spent its time taking its requests, each of which may
// start I/O (a buffered read its readahead, 0.1 ms and more): they are
// counted as taken evenly across it. Between entries the count stays as
// it was. On other rings completions are also posted between entries,
// which this counts at the next entry: the figures may then read a
// little high.
func (d *kernelDepth) entered(t0, t1 int64, before, n, after int, waited bool) {
	if d.first == 0 {
		d.first = t0
	} else {
		d.area += int64(d.held) * (t0 - d.last)
	}
	if n > 0 {
		d.sum += int64(n*before + n*(n+1)/2)
		d.samples += int64(n)
		d.max = max(d.max, before+n)
	}
	if waited {
		d.area += int64(before+n) * (t1 - t0)
	} else {
		d.area += int64(2*before+n) * (t1 - t0) / 2
	}
	d.held, d.last = after, t1
}

// record puts the figures in a thread's record; nothing when no request
// was submitted.
func (d *kernelDepth) record(rec *wire.ThreadRecord) {
	if d.samples == 0 {
		return
	}
	rec.KernelDepthMean = float64(d.sum) / float64(d.samples)
	rec.KernelDepthMax, rec.KernelDepthSamples = d.max, d.samples
	if span := d.last - d.first; span > 0 {
		rec.KernelDepthTimeMean, rec.KernelDepthSpanNS = float64(d.area)/float64(span), span
	}
}
