package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"ioswarm/result"
)

// writePhases writes one row per phase iteration under a two-line column
// title, so the columns stay narrow enough for a terminal.
func writePhases(w io.Writer, phases []result.Phase) {
	if len(phases) == 0 {
		fmt.Fprintln(w, "no phase completed")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "phase", "iter", "threads", "bytes", "window", "bandwidth", "bandwidth", "first-done",
		"sum of thread", "IOPS", "latency", "latency", "latency", "latency",
		"thread GB/s", "start", "cache", "resident")
	row(tw, "", "", "", "", "s", "GB/s", "GiB/s", "GB/s",
		"rates GB/s", "", "p50", "p99", "p99.9", "max",
		"min/mean/max", "skew", "drop", "before")
	stonewalled := false
	for i := range phases {
		p := &phases[i]
		stonewalled = stonewalled || p.Stonewalled
		row(tw, phaseCells(p)...)
	}
	tw.Flush()
	if stonewalled {
		fmt.Fprintln(w, "* stonewalled: figures cover only the timed part; threads finished their files untimed")
	}
	if v := verifiedNames(phases); v != "" {
		fmt.Fprintf(w, "%s: data verified while reading, inside the timed window (bandwidth and IOPS include the checking; latency is the read call alone)\n", v)
	}
	fmt.Fprintln(w, "latency is per operation for random phases and per record for sequential ones")
	fmt.Fprintln(w)
}

func phaseCells(p *result.Phase) []string {
	name := clean(p.Name)
	if p.Stonewalled {
		name += "*"
	}
	iops := "-"
	if isRandom(p.Name) {
		iops = count(p.IOPS)
	}
	lat := []string{"-", "-", "-", "-"}
	if hasLatency(p) {
		l := p.Latency
		lat = []string{humanNS(l.P50), humanNS(l.P99), humanNS(l.P999), humanNS(l.Max)}
	}
	tb := p.ThreadBandwidth
	cells := []string{name, strconv.Itoa(p.Iteration), strconv.Itoa(len(p.Threads)),
		binaryBytes(p.Bytes), seconds(p.WindowNS), gb(p.Bandwidth), gib(p.Bandwidth),
		gb(p.FirstDoneBandwidth), gb(p.SumOfRates), iops}
	cells = append(cells, lat...)
	return append(cells, gb(tb.Min)+"/"+gb(tb.Mean)+"/"+gb(tb.Max),
		humanNS(p.StartSkewNS), orDash(clean(p.CacheDrop)), percent(p.ResidentFraction))
}

// isRandom reports whether a phase is counted in operations (randwrite,
// randread) rather than only in bytes.
func isRandom(name string) bool { return strings.HasPrefix(name, "rand") }

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
			names = append(names, clean(p.Name))
		}
	}
	return strings.Join(names, ", ")
}
