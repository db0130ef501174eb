package iozone

import (
	"fmt"
	"strconv"
	"strings"
)

// count reads a whole number as IOzone's atoi would, but refuses text
// atoi would silently turn into 0.
func count(opt, val string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil {
		return 0, &OptionError{Option: opt, Msg: fmt.Sprintf("%q is not a whole number", val)}
	}
	return n, nil
}

// streams reads a -t/-l/-u count with IOzone's rules: above MaxStreams is
// an error, 0 or less becomes orZero.
func streams(opt, val string, orZero int) (int, error) {
	n, err := count(opt, val)
	if err != nil {
		return 0, err
	}
	if n > MaxStreams {
		return 0, &OptionError{Option: opt, Msg: "invalid options: maximum streams for throughput is MAXSTREAMS",
			Hint: fmt.Sprintf("IOzone's MAXSTREAMS is %d", MaxStreams)}
	}
	if n <= 0 {
		n = orZero
	}
	return n, nil
}

// kilobytes reads an IOzone size: a whole number of kB, or with a k, m or
// g suffix (either case) kB, MB or GB of 1024. IOzone reads only the
// leading digits and the last letter, so "1t" would be 1 kB and "1.5g" 1 GB
// there; both are refused here.
func kilobytes(opt, val string) (int64, error) {
	num, mult := val, int64(1)
	if val != "" {
		switch val[len(val)-1] {
		case 'k', 'K':
			num = val[:len(val)-1]
		case 'm', 'M':
			num, mult = val[:len(val)-1], 1<<10
		case 'g', 'G':
			num, mult = val[:len(val)-1], 1<<20
		case 't', 'T':
			return 0, &OptionError{Option: opt, Msg: fmt.Sprintf("%q: IOzone has no t suffix (it would read this as %s kB)", val, strings.TrimRight(val, "tT")),
				Hint: "write the size in g, e.g. 1024g"}
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || strings.HasPrefix(num, "+") {
		return 0, &OptionError{Option: opt, Msg: fmt.Sprintf("%q is not a size: a whole number of kB, or with a k, m or g suffix", val)}
	}
	if n > (1<<53)/mult {
		return 0, &OptionError{Option: opt, Msg: fmt.Sprintf("%q is too large", val)}
	}
	return n * mult, nil
}

// testName is IOzone's name for test number n (its -h text).
func testName(n int) string {
	names := []string{"write/rewrite", "read/re-read", "random-read/write", "read-backwards",
		"re-write-record", "stride-read", "fwrite/re-fwrite", "fread/re-fread", "random mix",
		"pwrite/re-pwrite", "pread/re-pread", "pwritev/re-pwritev", "preadv/re-preadv"}
	if n >= 0 && n < len(names) {
		return names[n]
	}
	return "no such test"
}
