package figures

import (
	"errors"
	"fmt"
	"math"

	"ioswarm/histogram"
	"ioswarm/result"
)

// nsPerSecond turns byte-per-nanosecond ratios into bytes per second.
const nsPerSecond = 1e9

// totals accumulates what one pass over the thread records yields.
type totals struct {
	bytes, ops, firstDoneBytes int64
	minStart, maxStart         int64
	minEnd, maxEnd             int64
	sumRates, minRate, maxRate float64
	fsync                      fsyncTotals
}

// Reduce computes every figure field of p from p.Threads (and p.Histogram
// for latency): Bytes, Ops, Bandwidth, FirstDoneBandwidth, SumOfRates,
// IOPS, WindowNS, StartSkewNS, FirstDoneNS, StartNS, ThreadBandwidth,
// FsyncLatency, FsyncShare and, when p.Histogram is present, Latency.
// FirstDoneBandwidth is 0 when p.FirstDoneNote is set (see FirstDoneNote).
// It leaves CacheDrop, ResidentFraction, Stonewalled, TimedBytes,
// ReleaseSkewNS and FirstDoneNote alone, and Latency too when there is no
// histogram. On error p is unchanged.
func Reduce(p *result.Phase) error {
	t, err := scan(p.Threads)
	if err != nil {
		return err
	}
	window, err := span(t.minStart, t.maxEnd)
	if err != nil {
		return fmt.Errorf("phase window: %w", err)
	}
	toFirst, err := span(t.minStart, t.minEnd)
	if err != nil {
		return fmt.Errorf("first-done interval: %w", err)
	}
	latency, err := latencyOf(p)
	if err != nil {
		return err
	}
	if err := reduceMetadata(p, window, toFirst); err != nil {
		return err
	}
	n := float64(len(p.Threads))
	p.Bytes, p.Ops = t.bytes, t.ops
	p.WindowNS = window
	p.StartNS, p.FirstDoneNS = t.minStart, t.minEnd
	p.StartSkewNS = t.maxStart - t.minStart // cannot overflow: both lie inside the window
	p.Bandwidth = Rate(t.bytes, window)
	p.FirstDoneBandwidth = Rate(t.firstDoneBytes, toFirst)
	if p.FirstDoneNote != "" {
		p.FirstDoneBandwidth = 0
	}
	p.IOPS = Rate(t.ops, window)
	p.SumOfRates = t.sumRates
	p.ThreadBandwidth = result.Spread{Min: t.minRate, Mean: t.sumRates / n, Max: t.maxRate}
	p.FsyncLatency, p.FsyncShare = t.fsync.figures()
	if p.Histogram != nil {
		p.Latency = latency
	}
	return nil
}

// span returns to − from, refusing empty or overflowing intervals so no
// figure can become NaN, Inf or negative.
func span(from, to int64) (int64, error) {
	d := to - from
	if to <= from {
		return 0, fmt.Errorf("end %d is not after start %d", to, from)
	}
	if d <= 0 {
		return 0, fmt.Errorf("interval from %d to %d overflows", from, to)
	}
	return d, nil
}

// scan validates every thread record and accumulates the totals.
func scan(threads []result.Thread) (totals, error) {
	if len(threads) == 0 {
		return totals{}, errors.New("no thread records")
	}
	t := totals{minStart: math.MaxInt64, maxStart: math.MinInt64,
		minEnd: math.MaxInt64, maxEnd: math.MinInt64,
		minRate: math.Inf(1), maxRate: math.Inf(-1)}
	for i := range threads {
		th := &threads[i]
		d, err := checkThread(th)
		if err != nil {
			return totals{}, fmt.Errorf("thread %d (host %q rank %d): %w", th.Thread, th.Host, th.Rank, err)
		}
		if err := t.fsync.add(th, d); err != nil {
			return totals{}, fmt.Errorf("thread %d (host %q rank %d): %w", th.Thread, th.Host, th.Rank, err)
		}
		if th.Bytes > math.MaxInt64-t.bytes || th.Ops > math.MaxInt64-t.ops {
			return totals{}, errors.New("total bytes or operations overflow")
		}
		t.bytes += th.Bytes
		t.ops += th.Ops
		t.firstDoneBytes += th.BytesAtFirstDone // ≤ Bytes, so no overflow either
		t.minStart, t.maxStart = min(t.minStart, th.StartNS), max(t.maxStart, th.StartNS)
		t.minEnd, t.maxEnd = min(t.minEnd, th.EndNS), max(t.maxEnd, th.EndNS)
		r := Rate(th.Bytes, d)
		t.sumRates += r
		t.minRate, t.maxRate = min(t.minRate, r), max(t.maxRate, r)
	}
	return t, nil
}

// checkThread rejects records no real thread could produce and returns
// the thread's duration.
func checkThread(th *result.Thread) (int64, error) {
	d, err := span(th.StartNS, th.EndNS)
	if err != nil {
		return 0, err
	}
	if th.Bytes < 0 || th.Ops < 0 {
		return 0, fmt.Errorf("negative bytes %d or operations %d", th.Bytes, th.Ops)
	}
	if th.BytesAtFirstDone < 0 || th.BytesAtFirstDone > th.Bytes {
		return 0, fmt.Errorf("bytes_at_first_done %d outside [0, bytes %d]", th.BytesAtFirstDone, th.Bytes)
	}
	return d, nil
}

// latencyOf computes percentiles from the phase's merged histogram; with
// no histogram it returns the zero value, which Reduce then ignores.
func latencyOf(p *result.Phase) (result.Latency, error) {
	if p.Histogram == nil {
		return result.Latency{}, nil
	}
	h, err := histogram.FromSparse(p.Histogram)
	if err != nil {
		return result.Latency{}, fmt.Errorf("latency histogram: %w", err)
	}
	return result.Latency{
		P50:  h.Quantile(0.50),
		P99:  h.Quantile(0.99),
		P999: h.Quantile(0.999),
		Max:  h.Max(),
	}, nil
}
