package hostlist

import (
	"strconv"
	"strings"
)

// Expand lists the hosts a Slurm hostlist expression names, in the order
// `scontrol show hostnames` prints them: "node[01-16,20]" is node01..node16
// then node20, and "rack[1-2]-node[1-3]" is the product with the first
// bracket outermost (rack1-node1, rack1-node2, ..., rack2-node3); with three
// or more brackets the order is Slurm's own (see slurmOrder). A range is
// zero-padded to the width of its low bound as written ("[08-100]" gives
// node08 .. node100; "[1-010]" gives node1 .. node10). Duplicates are kept.
//
// Beyond Slurm 22.05, text may follow the last bracket ("gpu[1-2]-ib"), as in
// pdsh and ClusterShell. Stricter than Slurm, empty items ("a,,b"), white
// space inside an item, an open range ("[1-]") and unmatched brackets are
// errors instead of being read in some lenient way. Lists over MaxHosts hosts
// or with names over 255 characters are refused before anything is allocated.
func Expand(list string) ([]string, error) {
	return expandLimit(list, MaxHosts)
}

// expandLimit is Expand with a caller's host budget, so that a file of many
// lines shares one bound.
func expandLimit(list string, limit int) ([]string, error) {
	pats, total, err := parseList(list, limit)
	if err != nil {
		return nil, err
	}
	hosts := make([]string, 0, total)
	for _, p := range pats {
		hosts = p.appendHosts(hosts)
	}
	return hosts, nil
}

// parseList parses every item and counts the hosts they name, refusing the
// list once the count passes limit.
func parseList(list string, limit int) ([]pattern, int, error) {
	items, err := splitTop(list)
	if err != nil {
		return nil, 0, err
	}
	pats := make([]pattern, 0, len(items))
	total := 0
	for _, it := range items {
		p, err := parseItem(list, it)
		if err != nil {
			return nil, 0, err
		}
		n, ok := p.count(limit - total)
		if !ok {
			return nil, 0, syntaxErr(list, it.start, "names more than %d hosts", MaxHosts)
		}
		if p.maxLen() > maxHostLen {
			return nil, 0, syntaxErr(list, it.start, "host names longer than %d characters", maxHostLen)
		}
		total += n
		pats = append(pats, p)
	}
	return pats, total, nil
}

// appendHosts appends the hosts p names, one per combination of bracket
// values. The combinations come in Slurm's order (see slurmOrder), counted
// like an odometer whose fastest wheel is the last bracket.
func (p pattern) appendHosts(dst []string) []string {
	values := make([][]string, len(p.groups))
	for g, ranges := range p.groups {
		values[g] = groupValues(ranges)
	}
	order := slurmOrder(len(p.groups))
	idx := make([]int, len(p.groups))
	var b strings.Builder
	for {
		b.Reset()
		b.WriteString(p.lits[0])
		for g := range p.groups {
			b.WriteString(values[g][idx[g]])
			b.WriteString(p.lits[g+1])
		}
		dst = append(dst, b.String())
		k := len(order) - 1
		for ; k >= 0; k-- {
			g := order[k]
			if idx[g]++; idx[g] < len(values[g]) {
				break
			}
			idx[g] = 0
		}
		if k < 0 {
			return dst
		}
	}
}

// slurmOrder lists bracket indexes from the slowest-varying to the fastest.
// Slurm 22.05 expands the last bracket innermost and peels the others from
// the right, so the next-to-last bracket varies slowest and the first one
// just before the last: "a[1-2]b[1-2]c[1-2]" gives a1b1c1, a1b1c2, a2b1c1,
// a2b1c2, a1b2c1, ... With two brackets this is the plain nested order.
func slurmOrder(n int) []int {
	if n == 0 {
		return nil
	}
	order := make([]int, 0, n)
	for g := n - 2; g >= 0; g-- {
		order = append(order, g)
	}
	return append(order, n-1)
}

// groupValues prints every number of a bracket, padded as written.
func groupValues(ranges []numRange) []string {
	var vals []string
	for _, r := range ranges {
		for k := r.lo; ; k++ {
			vals = append(vals, pad(k, r.width))
			if k == r.hi {
				break // also ends a range whose hi is the largest uint64
			}
		}
	}
	return vals
}

// pad prints k with at least width digits, as Slurm's "%0*lu" does.
func pad(k uint64, width int) string {
	s := strconv.FormatUint(k, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}
