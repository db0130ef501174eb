package report

import (
	"fmt"
	"math"
	"strconv"
)

// Decimal gigabytes are what storage vendors and the seeds quote; binary
// gibibytes are printed next to them so nobody has to convert.
const (
	gigabyte = 1e9
	gibibyte = 1 << 30
)

// binaryBytes prints a size in binary units: whole numbers as integers
// ("16 MiB"), others with two decimals ("1.50 GiB").
func binaryBytes(n int64) string {
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
		return fmt.Sprintf("%s%d %s", sign, u/unit, name)
	}
	return fmt.Sprintf("%s%.2f %s", sign, float64(u)/float64(unit), name)
}

// humanNS prints nanoseconds with three significant digits in the largest
// unit that keeps the number at or above 1: "850ns", "12.3µs", "4.56ms".
// Seconds have no upper limit, so a long phase reads "1250s".
func humanNS(ns int64) string {
	if ns < 0 {
		return "-" + humanAbs(-float64(ns))
	}
	return humanAbs(float64(ns))
}

func humanAbs(v float64) string {
	units := [...]struct {
		name string
		ns   float64
	}{{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}
	if v < 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64) + "ns"
	}
	i := len(units) - 1
	for i > 0 && v < units[i].ns {
		i--
	}
	s := threeDigits(v / units[i].ns)
	// Rounding 999.96µs gives "1000µs"; the next unit reads better.
	if i+1 < len(units) && s == "1000" {
		i++
		s = threeDigits(v / units[i].ns)
	}
	return s + units[i].name
}

// threeDigits prints v with about three significant digits.
func threeDigits(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

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
