package hostlist

import (
	"strconv"
	"strings"
)

// Compress folds a host list back into hostlist syntax for display: runs of
// consecutive numbers with the same prefix and padding become brackets, and
// neighbouring runs with the same prefix share one bracket
// ("node01,node02,node03,node07" becomes "node[01-03,07]"). Order and
// duplicates are preserved, so Expand(Compress(h)) gives h back for any h that
// Expand produced. Only a trailing number is folded, which keeps the result
// readable by Slurm as well. The result is correct, not necessarily minimal.
func Compress(hosts []string) string {
	var b strings.Builder
	for i := 0; i < len(hosts); {
		if i > 0 {
			b.WriteByte(',')
		}
		prefix, _, ok := splitTrailingNumber(hosts[i])
		if !ok {
			b.WriteString(hosts[i])
			i++
			continue
		}
		runs, next := collectRuns(hosts[i:], prefix)
		if len(runs) == 1 && runs[0].lo == runs[0].hi {
			b.WriteString(hosts[i])
		} else {
			writeBracket(&b, prefix, runs)
		}
		i += next
	}
	return b.String()
}

// collectRuns gathers the leading hosts that share prefix and end in a number,
// joining consecutive numbers into ranges. It returns the ranges and how many
// hosts they cover.
func collectRuns(hosts []string, prefix string) ([]numRange, int) {
	var runs []numRange
	n := 0
	for _, h := range hosts {
		p, digits, ok := splitTrailingNumber(h)
		if !ok || p != prefix {
			break
		}
		v, _ := strconv.ParseUint(digits, 10, 64)
		last := len(runs) - 1
		if last >= 0 && runs[last].hi < v && v == runs[last].hi+1 && pad(v, runs[last].width) == digits {
			runs[last].hi = v
		} else {
			runs = append(runs, numRange{lo: v, hi: v, width: len(digits)})
		}
		n++
	}
	return runs, n
}

func writeBracket(b *strings.Builder, prefix string, runs []numRange) {
	b.WriteString(prefix)
	b.WriteByte('[')
	for k, r := range runs {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pad(r.lo, r.width))
		if r.hi != r.lo {
			b.WriteByte('-')
			b.WriteString(pad(r.hi, r.width))
		}
	}
	b.WriteByte(']')
}

// splitTrailingNumber splits "node017" into "node" and "017". A number too
// large for uint64 is left as text, since no range could have produced it.
func splitTrailingNumber(h string) (prefix, digits string, ok bool) {
	i := len(h)
	for i > 0 && h[i-1] >= '0' && h[i-1] <= '9' {
		i--
	}
	if i == len(h) {
		return "", "", false
	}
	if _, err := strconv.ParseUint(h[i:], 10, 64); err != nil {
		return "", "", false
	}
	return h[:i], h[i:], true
}
