package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"ioswarm/result"
	"ioswarm/units"
	"ioswarm/wire"
)

// writePhases writes the details (--details phases) in two blocks, one row
// per phase iteration in each: what the filesystem delivered, then how it
// was spread (latency, per-thread rates, skew) and how cold the cache was.
// Two blocks of about 100 columns fit where one of 180 would wrap; the
// marks they share with the compact table are explained under it.
func writePhases(w io.Writer, phases []result.Phase) {
	if len(phases) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "phase", "iter", "threads", "bytes", "window", "bandwidth", "bandwidth", "first-done",
		"sum of thread", "IOPS")
	row(tw, "", "", "", "", "s", "GB/s", "GiB/s", "GB/s", "rates GB/s", "")
	for i := range phases {
		row(tw, throughputCells(&phases[i])...)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "phase", "iter", "latency", "latency", "latency", "latency", "thread GB/s", "start", "cache", "resident", "fsync")
	row(tw, "", "", "p50", "p99", "p99.9", "max", "min/mean/max", "skew", "drop", "before", "share")
	for i := range phases {
		row(tw, spreadCells(&phases[i])...)
	}
	tw.Flush()
	fmt.Fprintln(w, "window: latest end - earliest start; latency is per operation for random phases")
	fmt.Fprintln(w, "and per record for sequential ones; start skew: latest - earliest thread start;")
	fmt.Fprintln(w, "fsync share: the part of the threads' timed time spent in fsync")
	fmt.Fprintln(w)
}

func phaseName(p *result.Phase) string {
	name := Clean(p.Name)
	if p.Stonewalled {
		name += "*"
	}
	if len(p.Warnings) > 0 {
		name += "!"
	}
	return name
}

func throughputCells(p *result.Phase) []string {
	iops := "-"
	if wire.Phase(p.Name).CountsOps() {
		iops = count(p.IOPS)
	}
	if p.IODepth > 0 {
		// The depth the kernel held, beside the rate it bought.
		iops += fmt.Sprintf(" qd%.1f", depthShown(p))
	}
	return []string{phaseName(p), strconv.Itoa(p.Iteration), strconv.Itoa(len(p.Threads)),
		units.FormatBinary(p.Bytes), seconds(p.WindowNS), gb(p.Bandwidth), gib(p.Bandwidth),
		firstDone(p), gb(p.SumOfRates), iops}
}

func spreadCells(p *result.Phase) []string {
	lat := []string{"-", "-", "-", "-"}
	if hasLatency(p) {
		l := p.Latency
		lat = []string{units.FormatDuration(l.P50), units.FormatDuration(l.P99), units.FormatDuration(l.P999), units.FormatDuration(l.Max)}
	}
	tb := p.ThreadBandwidth
	cells := append([]string{phaseName(p), strconv.Itoa(p.Iteration)}, lat...)
	return append(cells, gb(tb.Min)+"/"+gb(tb.Mean)+"/"+gb(tb.Max),
		units.FormatDuration(p.StartSkewNS), orDash(Clean(p.CacheDrop.String())), percent(p.ResidentFraction), fsyncShare(p))
}

// firstDone is the phase's first-done bandwidth, or n/a where it is not
// reported (see figures.FirstDoneNote).
func firstDone(p *result.Phase) string {
	if p.FirstDoneNote != "" {
		return "n/a"
	}
	return gb(p.FirstDoneBandwidth)
}

// fsyncShare is the share of the threads' timed time spent in fsync, or
// "-" for a phase that timed no fsync.
func fsyncShare(p *result.Phase) string {
	if p.FsyncLatency == nil {
		return "-"
	}
	return percent(p.FsyncShare)
}

// FirstDoneWithheldNote explains an "n/a" in a first-done column, under
// every table that prints one: a reader of a sweep or a comparison meets
// it as often as a reader of one run.
const FirstDoneWithheldNote = "first-done n/a: not reported for buffered writes with fsync (the other threads'\n" +
	"  data was still in the page cache when the first thread ended)"

// FirstDoneWithheld says whether any of phases reports no first-done: a
// table that prints them shows "n/a" and owes FirstDoneWithheldNote.
func FirstDoneWithheld(phases []result.Phase) bool { return withheld(phases, "") }

// withheld reports whether any phase named name (any phase for "") does
// not report first-done.
func withheld(phases []result.Phase, name string) bool {
	for i := range phases {
		if phases[i].FirstDoneNote != "" && (name == "" || phases[i].Name == name) {
			return true
		}
	}
	return false
}

func warned(phases []result.Phase) bool {
	for i := range phases {
		if len(phases[i].Warnings) > 0 {
			return true
		}
	}
	return false
}

// hasLatency reports whether the phase carries latency figures at all;
// zero percentiles without a histogram mean "not measured", not 0 ns.
func hasLatency(p *result.Phase) bool {
	return p.Histogram != nil || p.Latency != (result.Latency{})
}

// verifiedNames lists, once each and in order, the phases whose data was
// checked on read: their rates include the checking, which a reader
// comparing them with another tool's must know.
func verifiedNames(phases []result.Phase) string {
	var names []string
	seen := map[string]bool{}
	for _, p := range phases {
		if p.Verified && !seen[p.Name] {
			seen[p.Name] = true
			names = append(names, Clean(p.Name))
		}
	}
	return strings.Join(names, ", ")
}
