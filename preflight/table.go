package preflight

import (
	"fmt"
	"io"
	"ioswarm/nodefacts"
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
	fmt.Fprintln(tw, "NODE\tSTATUS\tUSER\tARCH\tKERNEL\tFS\tFREE\tMEMORY\tWRITABLE\tDROP CACHES\tIO_URING\tWALL CLOCK OFFSET\tSHARED")
	for _, r := range results {
		fmt.Fprintln(tw, strings.Join(row(r), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeTrailer(w, results)
}

// writeTrailer follows the node rows: each node's problems and notes, the
// filesystems and memory seen, and the verdict.
func writeTrailer(w io.Writer, results []Result) error {
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
	writeFilesystems(w, results)
	writeClientCaches(w, results)
	writeMemory(w, results)
	var err error
	switch {
	case failed > 0:
		_, err = fmt.Fprintf(w, "%d of %d nodes failed\n", failed, len(results))
	case len(results) == 1:
		_, err = fmt.Fprintln(w, "the node is ready")
	default:
		_, err = fmt.Fprintf(w, "all %d nodes ready%s\n", len(results), notSharedNote(results))
	}
	return err
}

// row is one node's cells; "-" where the node could not say.
func row(r Result) []string {
	status := "ok"
	if !r.OK {
		status = "FAILED"
	}
	cells := []string{r.Host, status, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}
	if rep := r.Report; rep != nil {
		copy(cells[2:], []string{rep.User, rep.Arch, rep.Kernel, orDash(rep.FSType), "-", "-", yesNo(rep.Writable), yesNo(rep.CanDrop),
			yesNo(rep.NoUring == "")})
		if rep.DirError == "" {
			cells[6] = units.FormatBytes(rep.FreeBytes)
		}
		if f := rep.Facts; f != nil && f.MemTotal > 0 {
			cells[7] = units.FormatBytes(f.MemTotal)
		}
	}
	if r.Clock != nil {
		cells[11] = formatOffset(r.Clock.WallNS, r.Clock.ErrorNS)
	}
	if r.Shared != nil {
		cells[12] = yesNo(*r.Shared)
	}
	return cells
}

// writeFilesystems lists each distinct mount under --dir with its hosts
// count: one line when every node sees the same filesystem.
func writeFilesystems(w io.Writer, results []Result) {
	var order []string
	count := map[string]int{}
	for _, r := range results {
		if r.Report == nil || r.Report.Facts == nil {
			continue
		}
		f := r.Report.Facts
		line := fmt.Sprintf("%s at %s (block %s, options %s)", f.Describe(), f.MountPoint, units.FormatBytes(f.BlockSize), f.MountOptions)
		if count[line] == 0 {
			order = append(order, line)
		}
		count[line]++
	}
	for _, l := range order {
		fmt.Fprintf(w, "filesystem: %s on %d node(s)\n", l, count[l])
	}
}

// writeMemory sums what the nodes' caches hold, each kernel once: the
// figure the seed's sizing rule doubles.
func writeMemory(w io.Writer, results []Result) {
	var facts []nodefacts.Facts
	for _, r := range results {
		if r.Report != nil && r.Report.Facts != nil {
			facts = append(facts, *r.Report.Facts)
		}
	}
	if len(facts) == 0 {
		return
	}
	cache, kernels := nodefacts.ClientCache(facts)
	fmt.Fprintf(w, "memory: the clients can cache %s between them (%d kernel(s)); reads are cold by size with --total of at least %s plus twice what the servers cache (--total auto)\n",
		units.FormatBytes(cache), kernels, units.FormatBytes(2*cache))
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
