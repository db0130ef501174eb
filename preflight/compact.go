package preflight

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// compactColumns are the cells of the compact table, a subset of row's:
// what decides whether a run can start and how its reads stay cold
// (whether the nodes share --dir), in 80 columns for names of up to a
// dozen characters.
var compactColumns = []int{0, 1, 5, 6, 7, 8, 9, 12}

// WriteCompactTable is WriteTable with the columns that say whether a run
// can start (node, status, filesystem, free space, memory, writable, cache
// dropping, shared --dir), so that it fits a terminal; a last line names what
// --details adds.
func WriteCompactTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Short heads: the full ones are --details'; SHARED says whether the
	// node sees the other nodes' files in --dir (the marker test).
	fmt.Fprintln(tw, "NODE\tSTATUS\tFS\tFREE\tMEMORY\tWRITE\tDROP\tSHARED")
	for _, r := range results {
		cells := row(r)
		var picked []string
		for _, i := range compactColumns {
			picked = append(picked, cells[i])
		}
		fmt.Fprintln(tw, strings.Join(picked, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeTrailer(w, results); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "(user, arch, kernel, io_uring and clock offset: --details)")
	return err
}
