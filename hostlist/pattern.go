package hostlist

import (
	"strconv"
	"strings"
)

// pattern is one item of a list: literal text around bracket groups, so that
// lits has one element more than groups ("rack[1-2]-node[1-3]" is lits
// "rack", "-node", "" and two groups).
type pattern struct {
	lits   []string
	groups [][]numRange
}

// numRange is one range inside brackets. width is the length of lo as
// written; numbers are zero-padded to it.
type numRange struct {
	lo, hi uint64
	width  int
}

// parseItem reads the item at sp of list. splitTop has already checked that
// brackets pair up without nesting.
func parseItem(list string, sp span) (pattern, error) {
	var p pattern
	i := sp.start
	for {
		j := i
		for j < sp.end && list[j] != '[' {
			if !isNameByte(list[j]) {
				return pattern{}, syntaxErr(list, j, "%s", badByteMsg(list[j], "host name"))
			}
			j++
		}
		p.lits = append(p.lits, list[i:j])
		if j == sp.end {
			return p, nil
		}
		closing := j + strings.IndexByte(list[j:sp.end], ']')
		group, err := parseGroup(list, j+1, closing)
		if err != nil {
			return pattern{}, err
		}
		p.groups = append(p.groups, group)
		i = closing + 1
	}
}

// parseGroup reads the comma-separated ranges between list[start:end].
func parseGroup(list string, start, end int) ([]numRange, error) {
	var ranges []numRange
	for i := start; ; {
		j := i + strings.IndexByte(list[i:end]+",", ',')
		r, err := parseRange(list, i, j)
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, r)
		if j == end {
			return ranges, nil
		}
		i = j + 1
	}
}

// parseRange reads "lo" or "lo-hi" at list[start:end].
func parseRange(list string, start, end int) (numRange, error) {
	text := list[start:end]
	if text == "" {
		return numRange{}, syntaxErr(list, start, "empty range inside brackets")
	}
	loText, hiText, isRange := strings.Cut(text, "-")
	lo, err := parseNumber(list, start, loText)
	if err != nil {
		return numRange{}, err
	}
	hi := lo
	if isRange {
		if hi, err = parseNumber(list, start+len(loText)+1, hiText); err != nil {
			return numRange{}, err
		}
	}
	if lo > hi {
		return numRange{}, syntaxErr(list, start, "descending range %q (write the low number first)", text)
	}
	return numRange{lo: lo, hi: hi, width: len(loText)}, nil
}

func parseNumber(list string, offset int, text string) (uint64, error) {
	if text == "" {
		return 0, syntaxErr(list, offset, "missing number in range")
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return 0, syntaxErr(list, offset+i, "ranges hold decimal numbers only, found %q", text[i])
		}
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, syntaxErr(list, offset, "number %s is too large", text)
	}
	return n, nil
}

// count returns how many hosts p names, or false once that passes limit. It
// multiplies group sizes with a check at each step, so no overflow can hide a
// huge list.
func (p pattern) count(limit int) (int, bool) {
	n := 1
	for _, ranges := range p.groups {
		g := 0
		for _, r := range ranges {
			if r.hi-r.lo >= uint64(limit) {
				return 0, false
			}
			g += int(r.hi-r.lo) + 1
			if g > limit {
				return 0, false
			}
		}
		if n > limit/g {
			return 0, false
		}
		n *= g
	}
	return n, n <= limit
}

// maxLen is the length of the longest name p can produce.
func (p pattern) maxLen() int {
	n := 0
	for _, lit := range p.lits {
		n += len(lit)
	}
	for _, ranges := range p.groups {
		widest := 0
		for _, r := range ranges {
			widest = max(widest, r.width, len(strconv.FormatUint(r.hi, 10)))
		}
		n += widest
	}
	return n
}
