package units

import (
	"math"
	"strconv"
)

// FormatSize prints n exactly, in the largest binary unit that divides it:
// 16777216 is "16MiB", 1536 is "1536B" (not "1.5KiB", which would be a
// rounded figure in another context). ParseSize reads every result back to n.
func FormatSize(n int64) string {
	if n == 0 {
		return "0B"
	}
	sign := ""
	u := uint64(n)
	if n < 0 {
		// Two's complement negation is exact even for the smallest int64.
		sign, u = "-", -u
	}
	names := [...]string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	for i := len(names) - 1; i >= 0; i-- {
		shift := 10 * uint(i+1)
		if u%(1<<shift) == 0 {
			return sign + strconv.FormatUint(u>>shift, 10) + names[i]
		}
	}
	return sign + strconv.FormatUint(u, 10) + "B"
}

// FormatBytes prints a byte count rounded to three significant digits in
// binary units, for a figure read at a glance (free space, progress):
// "1023 B", "1.50 KiB", "200 MiB". Exact sizes are FormatSize's.
func FormatBytes(n int64) string {
	if n > -1024 && n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	return formatScaled(float64(n), 1024, units[:], " ")
}

// FormatRate prints a rate in decimal units (kB/s, MB/s, GB/s: powers of
// 1000, as storage vendors and IOR quote them) with at least three
// significant digits, for example "2.13 GB/s".
func FormatRate(bytesPerSec float64) string {
	units := [...]string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"}
	return formatScaled(bytesPerSec, 1000, units[:], " ")
}

// FormatRateGiB prints a rate in binary units (KiB/s, MiB/s, GiB/s: powers of
// 1024) with at least three significant digits, for example "1.98 GiB/s".
func FormatRateGiB(bytesPerSec float64) string {
	units := [...]string{"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"}
	return formatScaled(bytesPerSec, 1024, units[:], " ")
}

// FormatDuration prints a latency given in nanoseconds with three significant
// digits: "85ns", "412µs", "1.20ms", "3.40s". Nanoseconds are printed whole,
// since the clock has no finer grain; durations above 1000 s stay in seconds.
func FormatDuration(ns int64) string {
	if ns > -1000 && ns < 1000 {
		return strconv.FormatInt(ns, 10) + "ns"
	}
	units := [...]string{"ns", "µs", "ms", "s"}
	return formatScaled(float64(ns), 1000, units[:], "")
}

// formatScaled divides v by base until it is below base (or the units run
// out) and prints it with three significant digits. Rounding can carry a
// value up to base ("999.7" becomes "1000"), in which case the next unit is
// used so that 999.7 MB/s reads "1.00 GB/s".
func formatScaled(v, base float64, units []string, sep string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64) + sep + units[0]
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	i := 0
	for i < len(units)-1 && v >= base {
		v /= base
		i++
	}
	s, shown := threeDigits(v)
	if shown >= base && i < len(units)-1 {
		s, _ = threeDigits(v / base)
		i++
	}
	return sign + s + sep + units[i]
}

// threeDigits prints v (>= 0) with two decimals below 10, one below 100 and
// none above, deciding on the rounded value so that 9.996 prints "10.0"
// rather than "10.00". It also returns the value as printed.
func threeDigits(v float64) (string, float64) {
	limit := 10.0
	for decimals := 2; decimals > 0; decimals-- {
		s := strconv.FormatFloat(v, 'f', decimals, 64)
		shown, _ := strconv.ParseFloat(s, 64)
		if shown < limit {
			return s, shown
		}
		limit *= 10
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	shown, _ := strconv.ParseFloat(s, 64)
	return s, shown
}
