package preflight

import (
	"fmt"
	"io"
	"ioswarm/units"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable prints one line per node, then the problems and notes of each
// node, then a summary line.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTATUS\tUSER\tARCH\tKERNEL\tFS\tFREE\tWRITABLE\tDROP CACHES\tWALL CLOCK OFFSET")
	for _, r := range results {
		fmt.Fprintln(tw, strings.Join(row(r), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if !r.OK {
			failed++
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "%s: %s\n", r.Host, p)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "%s: note: %s\n", r.Host, n)
		}
	}
	var err error
	switch {
	case failed > 0:
		_, err = fmt.Fprintf(w, "%d of %d hosts failed\n", failed, len(results))
	case len(results) == 1:
		_, err = fmt.Fprintln(w, "the host is ready")
	default:
		_, err = fmt.Fprintf(w, "all %d hosts ready\n", len(results))
	}
	return err
}

// row is one node's cells; "-" where the node could not say.
func row(r Result) []string {
	status := "ok"
	if !r.OK {
		status = "FAILED"
	}
	cells := []string{r.Host, status, "-", "-", "-", "-", "-", "-", "-", "-"}
	if rep := r.Report; rep != nil {
		copy(cells[2:], []string{rep.User, rep.Arch, rep.Kernel, orDash(rep.FSType), "-", yesNo(rep.Writable), yesNo(rep.CanDrop)})
		if rep.DirError == "" {
			cells[6] = units.FormatBytes(rep.FreeBytes)
		}
	}
	if r.Clock != nil {
		cells[9] = formatOffset(r.Clock.WallNS, r.Clock.ErrorNS)
	}
	return cells
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// formatOffset prints an offset with its error bound, in milliseconds
// with microsecond resolution: "+0.012 ms ±0.045 ms".
func formatOffset(offset, bound int64) string {
	ms := func(ns int64) string { return strconv.FormatFloat(float64(ns)/float64(time.Millisecond), 'f', 3, 64) }
	sign := "+"
	if offset < 0 {
		sign = "-"
		offset = -offset
	}
	return sign + ms(offset) + " ms ±" + ms(bound) + " ms"
}
