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

// FormatBinary prints a size in binary units as a table shows it: whole
// multiples of the unit as integers ("16 MiB"), others with two decimals
// ("1.50 GiB", "31.25 MiB"), below 1 KiB in bytes ("1023 B").
func FormatBinary(n int64) string {
	units := [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	sign, u := "", uint64(n)
	if n < 0 {
		sign, u = "-", -u // two's complement: right for MinInt64 too
	}
	if u < 1024 {
		return sign + strconv.FormatUint(u, 10) + " B"
	}
	unit, name := uint64(1024), units[0]
	for i := 1; i < len(units) && u >= unit<<10; i++ {
		unit, name = unit<<10, units[i]
	}
	if u%unit == 0 {
		return sign + strconv.FormatUint(u/unit, 10) + " " + name
	}
	return sign + strconv.FormatFloat(float64(u)/float64(unit), 'f', 2, 64) + " " + name
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
func FormatDuration(ns int64) string { return FormatNanos(float64(ns)) }

// FormatNanos is FormatDuration for a figure that need not be whole, such
// as a mean: below 1000 ns it is rounded to whole nanoseconds.
func FormatNanos(ns float64) string {
	if ns > -1000 && ns < 1000 {
		return strconv.FormatFloat(ns, 'f', 0, 64) + "ns"
	}
	units := [...]string{"ns", "µs", "ms", "s"}
	return formatScaled(ns, 1000, units[:], "")
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
