package coordinator

import (
	"fmt"
	"time"

	"ioswarm/result"
)

// The release lead is how far ahead of the run request a phase's release
// is set: it must cover the request's way to every rank and the rank's
// start of its threads, each of which then waits for the release on its
// own. A rank fills its buffers, sets up its rings and collects its
// garbage when the phase is prepared, before the lead starts (see
// rank.armedPhase), so what is left
// is the request and the threads' start: a few milliseconds on an idle
// node, more under load and with many threads. A fixed lead of 200 ms
// spent most of that idle, 0.8 s per sweep point of four phases: the
// largest part of the time a point spent outside its timed phases. So the
// lead is measured: every rank says when its last thread was ready, and
// the next phase's lead is a multiple of the longest time any rank took,
// scaled by how many threads a rank now has to start.
const (
	firstLead   = 200 * time.Millisecond // no measurement yet
	minLead     = 20 * time.Millisecond
	maxLead     = 2 * time.Second
	leadHeadway = 3 // times the readiness measured last
)

// readiness is what the last phase measured: the longest time from the
// run request being sent to a rank's last thread waiting, and the most
// threads a rank had then.
type readiness struct {
	took    time.Duration
	threads int
}

// lead is the release lead for a phase whose ranks have at most threads
// threads each, after r was measured (r.threads == 0: nothing measured).
func (r readiness) lead(threads int) time.Duration {
	if r.threads == 0 {
		return firstLead
	}
	d := leadHeadway * r.took
	if threads > r.threads {
		d = d * time.Duration(threads) / time.Duration(r.threads)
	}
	return min(max(d, minLead), maxLead)
}

// next is what a phase leaves for the one after it: the new measurement,
// or half the old one when that is longer (one slow phase, say a node
// busy with a cache drop, keeps the lead up for a few phases, not for
// ever).
func (r readiness) next(took time.Duration, threads int) readiness {
	if r.threads == threads && r.took/2 > took {
		took = r.took / 2
	}
	return readiness{took: took, threads: threads}
}

// lateWarning names the rank whose threads were ready last when that was
// after the release: they waited for the run request, not the release, and
// started late by that much.
func lateWarning(p *result.Phase, host string) string {
	if p.ReleaseMarginNS >= 0 {
		return ""
	}
	return fmt.Sprintf("%s: the threads on %s were ready %s after the release (lead %s): the run request or "+
		"their start took longer than the lead, and they started late",
		p.Name, host, time.Duration(-p.ReleaseMarginNS).Round(time.Microsecond),
		time.Duration(p.ReleaseLeadNS).Round(time.Microsecond))
}
