package report

import (
	"math"
	"strconv"
)

// Decimal gigabytes are what storage vendors and the seeds quote; binary
// gibibytes are printed next to them so nobody has to convert.
const (
	gigabyte = 1e9
	gibibyte = 1 << 30
)

// gb prints a rate in decimal GB/s with three decimals.
func gb(rate float64) string { return fixed(rate/gigabyte, 3) }

// gib prints a rate in GiB/s with three decimals.
func gib(rate float64) string { return fixed(rate/gibibyte, 3) }

// seconds prints nanoseconds as seconds with millisecond resolution.
func seconds(ns int64) string { return fixed(float64(ns)/1e9, 3) }

// percent prints a fraction in [0, 1] as a percentage.
func percent(f float64) string { return fixed(f*100, 1) + "%" }

// count prints an operation rate or count without decimals.
func count(v float64) string { return fixed(v, 0) }

// fixed prints v with prec decimals, switching to exponent form for
// magnitudes no storage system reaches, which only a damaged file can
// hold; without that one such value would print hundreds of digits.
func fixed(v float64, prec int) string {
	if math.Abs(v) >= 1e12 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// exact prints a float with the fewest digits that read back identically,
// never in exponent form, so CSV consumers lose nothing.
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// orDash returns s, or "-" when s is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
