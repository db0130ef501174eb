package progress

import (
	"fmt"
	"ioswarm/units"
	"time"
)

// rateWindow is how far back the current rate looks: long enough to
// smooth over ranks reporting at different moments, short enough to
// show a slowdown within seconds.
const rateWindow = 3 * time.Second

type sample struct {
	done    int64
	elapsed time.Duration
}

// phaseState is what is known of the running phase.
type phaseState struct {
	name      string
	iteration int
	total     int64
	limit     time.Duration // the phase stops being timed then (stonewall); 0 = none
	samples   []sample      // within rateWindow of the latest, but at least two
}

func (p *phaseState) add(done int64, elapsed time.Duration) {
	p.samples = append(p.samples, sample{done, elapsed})
	// Two samples are kept even when far apart (a stalled phase), so a
	// rate can always be computed.
	for len(p.samples) > 2 && elapsed-p.samples[0].elapsed > rateWindow {
		p.samples = p.samples[1:]
	}
}

// minSpan is the shortest interval a current rate is taken over. Ranks
// report at different moments, so two samples a few milliseconds apart
// differ by one rank's whole second of work: a rate over them would be
// absurd.
const minSpan = time.Second

// rate is the aggregate bytes per second over the recent window, or
// since release while the samples span less than minSpan.
func (p *phaseState) rate() float64 {
	n := len(p.samples)
	if n == 0 {
		return 0
	}
	last := p.samples[n-1]
	first := p.samples[0]
	if last.elapsed-first.elapsed < minSpan {
		first = sample{} // the release: nothing done, nothing elapsed
	}
	dt := last.elapsed - first.elapsed
	if dt <= 0 {
		return 0
	}
	return float64(last.done-first.done) / dt.Seconds()
}

// summary is "45.0%  1.234 GB/s  460 MiB of 1.00 GiB  ETA 4s".
func (p *phaseState) summary() string {
	if len(p.samples) == 0 {
		if p.limit > 0 {
			// A long phase says at once how long it may take.
			return "starting, timed for at most " + etaText(p.limit)
		}
		return "starting"
	}
	done := p.samples[len(p.samples)-1].done
	pct := 0.0
	if p.total > 0 {
		pct = min(100, 100*float64(done)/float64(p.total))
	}
	rate := p.rate()
	eta := "-"
	last := p.samples[len(p.samples)-1].elapsed
	switch {
	case done >= p.total:
		eta = "0s"
	case rate > 0:
		left := time.Duration(float64(p.total-done) / rate * float64(time.Second))
		if p.limit > 0 && p.limit-last < left {
			// The stonewall ends the timing first.
			left = max(p.limit-last, 0)
		}
		eta = etaText(left)
	case p.limit > 0:
		eta = etaText(max(p.limit-last, 0))
	}
	return fmt.Sprintf("%5.1f%%  %s  %s of %s  ETA %s", pct, rateText(rate), units.FormatBytes(done), units.FormatBytes(p.total), eta)
}
