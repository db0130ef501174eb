package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/units"
)

// nodeShare is one node's part of a phase: its threads' bytes over its
// own window (earliest start to latest end of its threads).
type nodeShare struct {
	host           string
	threads        int
	bytes          int64
	start, end     int64 // coordinator clock
	rate           float64
	slowest        int // the node's slowest thread
	slowestRate    float64
	slowestPresent bool
}

// shares splits a phase by node, in the order the nodes first appear.
func shares(p *result.Phase) []nodeShare {
	var out []nodeShare
	at := map[string]int{}
	for _, t := range p.Threads {
		i, ok := at[t.Host]
		if !ok {
			i = len(out)
			at[t.Host] = i
			out = append(out, nodeShare{host: t.Host, start: t.StartNS, end: t.EndNS})
		}
		n := &out[i]
		n.threads++
		n.bytes += t.Bytes
		n.start, n.end = min(n.start, t.StartNS), max(n.end, t.EndNS)
		if r := figures.ThreadRate(&t); !n.slowestPresent || r < n.slowestRate {
			n.slowest, n.slowestRate, n.slowestPresent = t.Thread, r, true
		}
	}
	for i := range out {
		out[i].rate = figures.Rate(out[i].bytes, out[i].end-out[i].start)
	}
	return out
}

// stragglerGap is how far below the median a node's (or, on one node, a
// thread's) rate must be to be named in the default table: within it,
// run-to-run noise on shared storage is the likelier cause.
const stragglerGap = 0.20

// straggler names the slowest node of a phase when its rate is more than
// stragglerGap below the median node's, or on a single node the slowest
// thread against the median thread; "" when nobody lags.
func straggler(p *result.Phase) string {
	ns := shares(p)
	if len(ns) >= 2 {
		rates := make([]float64, len(ns))
		for i, n := range ns {
			rates[i] = n.rate
		}
		med := figures.Median(rates)
		slow := slices.IndexFunc(ns, func(n nodeShare) bool { return n.rate == slices.Min(rates) })
		if med > 0 && ns[slow].rate < (1-stragglerGap)*med {
			return fmt.Sprintf("slow: %s %d on node %s, %s GB/s, %.0f%% below the median node (%s)",
				Clean(p.Name), p.Iteration, Clean(ns[slow].host), gb(ns[slow].rate), 100*(1-ns[slow].rate/med), gb(med))
		}
		return ""
	}
	if len(p.Threads) < 2 {
		return ""
	}
	rates := make([]float64, len(p.Threads))
	for i := range p.Threads {
		rates[i] = figures.ThreadRate(&p.Threads[i])
	}
	med := figures.Median(rates)
	slow := slices.Index(rates, slices.Min(rates))
	if med > 0 && rates[slow] < (1-stragglerGap)*med {
		return fmt.Sprintf("slow: %s %d thread %d, %s GB/s, %.0f%% below the median thread (%s)",
			Clean(p.Name), p.Iteration, p.Threads[slow].Thread, gb(rates[slow]), 100*(1-rates[slow]/med), gb(med))
	}
	return ""
}

// writeNodes prints every phase node by node: bytes, the node's rate over
// its own window, and where that window lies in the phase's.
func writeNodes(w io.Writer, phases []result.Phase) {
	fmt.Fprintln(w, "per node: GB/s = its bytes / its own window; start, end: from the phase's start")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "phase", "iter", "node", "threads", "bytes", "GB/s", "start", "end", "slowest thread")
	for i := range phases {
		p := &phases[i]
		for _, n := range shares(p) {
			row(tw, Clean(p.Name), strconv.Itoa(p.Iteration), Clean(n.host), strconv.Itoa(n.threads), units.FormatBinary(n.bytes),
				gb(n.rate), units.FormatDuration(n.start-p.StartNS), units.FormatDuration(n.end-p.StartNS),
				fmt.Sprintf("%d (%s)", n.slowest, gb(n.slowestRate)))
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// writeThreads prints every thread's record of every phase.
func writeThreads(w io.Writer, phases []result.Phase) {
	fmt.Fprintln(w, "per thread: start and end from the phase's start; GB/s over the thread's own time")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "phase", "iter", "thread", "node", "bytes", "ops", "GB/s", "start", "end", "file of")
	for i := range phases {
		p := &phases[i]
		for j := range p.Threads {
			t := &p.Threads[j]
			of := "-"
			if t.WrittenByThread != nil {
				of = strconv.Itoa(*t.WrittenByThread)
				if t.WrittenByHost != "" {
					of += " on " + Clean(t.WrittenByHost)
				}
			}
			row(tw, Clean(p.Name), strconv.Itoa(p.Iteration), strconv.Itoa(t.Thread), Clean(t.Host), units.FormatBinary(t.Bytes),
				strconv.FormatInt(t.Ops, 10), gb(figures.ThreadRate(t)), units.FormatDuration(t.StartNS-p.StartNS), units.FormatDuration(t.EndNS-p.StartNS), of)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
}
