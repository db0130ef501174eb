package preflight

import (
	"fmt"
	"io"
)

// writeClientCaches lists each node's client cache (kind and size), alike
// ones once with their number of nodes: the caches reads may come from,
// among them those drop_caches does not empty.
func writeClientCaches(w io.Writer, results []Result) {
	var order []string
	count := map[string]int{}
	for _, r := range results {
		if r.Report == nil || r.Report.Facts == nil || r.Report.Facts.ClientCache.Kind == "" {
			continue
		}
		f := r.Report.Facts
		line := f.ClientCache.Describe(f.MemTotal)
		if f.ClientCache.Note != "" {
			line += " (" + f.ClientCache.Note + ")"
		}
		if count[line] == 0 {
			order = append(order, line)
		}
		count[line]++
	}
	for _, l := range order {
		fmt.Fprintf(w, "client cache: %s on %d node(s)\n", l, count[l])
	}
}
