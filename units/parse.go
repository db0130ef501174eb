package units

import (
	"fmt"
	"math/big"
	"strings"
)

// maxSizeLen bounds the input so that arithmetic on the digits stays cheap;
// no honest size needs more characters than this.
const maxSizeLen = 64

// SizeError reports a size that cannot be used. It names the input so that a
// user who passed several sizes can tell which one is wrong.
type SizeError struct {
	Input string // the text as the user gave it
	Msg   string // what is wrong with it
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("invalid size %q: %s", e.Input, e.Msg)
}

// ParseSize reads a byte count such as "4096", "512B", "16M", "1.5GiB" or
// "8T". Suffixes are case-insensitive and binary: K and KiB mean 1024, M and
// MiB 1024², and so on up to P and PiB. A fractional number is accepted only
// when the result is a whole number of bytes ("1.5K" is 1536, "0.3K" is an
// error). Decimal words (KB, MB, GB, TB, PB) are refused as ambiguous. Zero is
// accepted; callers that need a positive size say so in their own words.
func ParseSize(s string) (int64, error) {
	fail := func(format string, args ...any) (int64, error) {
		return 0, &SizeError{Input: s, Msg: fmt.Sprintf(format, args...)}
	}
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return fail("empty")
	case len(t) > maxSizeLen:
		return fail("longer than %d characters", maxSizeLen)
	case t[0] == '-':
		return fail("negative")
	}
	whole, frac, rest, ok := splitNumber(t)
	if !ok {
		return fail("expected a number such as 4096, 16M or 1.5GiB")
	}
	suffix := strings.TrimSpace(rest)
	mult, msg := unitMultiplier(suffix)
	if msg != "" {
		return fail("%s", msg)
	}
	n, msg := exactBytes(whole, frac, mult)
	if msg != "" {
		return fail("%s", msg)
	}
	return n, nil
}

// splitNumber cuts t into the digits before the point, the digits after it
// and whatever follows. A number needs digits before the point, and a point
// needs digits after it: ".5M" and "1.M" read as typing mistakes.
func splitNumber(t string) (whole, frac, rest string, ok bool) {
	i := digitRun(t)
	whole, rest = t[:i], t[i:]
	if whole == "" {
		return "", "", "", false
	}
	if strings.HasPrefix(rest, ".") {
		j := digitRun(rest[1:])
		if j == 0 {
			return "", "", "", false
		}
		frac, rest = rest[1:1+j], rest[1+j:]
	}
	return whole, frac, rest, true
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// unitMultiplier maps a suffix to its number of bytes, or explains why the
// suffix is not accepted.
func unitMultiplier(suffix string) (int64, string) {
	switch strings.ToLower(suffix) {
	case "", "b":
		return 1, ""
	case "k", "kib":
		return 1 << 10, ""
	case "m", "mib":
		return 1 << 20, ""
	case "g", "gib":
		return 1 << 30, ""
	case "t", "tib":
		return 1 << 40, ""
	case "p", "pib":
		return 1 << 50, ""
	case "kb", "mb", "gb", "tb", "pb":
		bin := strings.ToUpper(suffix[:1])
		return 0, fmt.Sprintf("%q is ambiguous (decimal or binary); write %q or %q for the binary unit",
			suffix, bin, bin+"iB")
	}
	return 0, fmt.Sprintf("unknown suffix %q (use K, M, G, T, P or KiB..PiB)", suffix)
}

// exactBytes computes (whole.frac) × mult without rounding. The digits are at
// most maxSizeLen long, so big integers cost nothing here and spare us a
// hand-written overflow analysis.
func exactBytes(whole, frac string, mult int64) (int64, string) {
	num, _ := new(big.Int).SetString(whole+frac, 10)
	num.Mul(num, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 {
		if mult == 1 {
			return 0, fmt.Sprintf("%s.%s is not a whole number of bytes", whole, frac)
		}
		return 0, fmt.Sprintf("%s.%s × %d is not a whole number of bytes", whole, frac, mult)
	}
	if !q.IsInt64() {
		return 0, "too large (the largest size is 9223372036854775807 bytes, just under 8 EiB)"
	}
	return q.Int64(), ""
}

// NearestMultiple returns the multiples of unit nearest to n from below and
// from above, so that an error can propose valid values ("100M is not a whole
// number of 16M records; use 96MiB or 112MiB"). When n is itself a multiple
// both results are n. below may be 0, which callers usually cannot use. When no
// larger multiple fits in an int64, above equals below. Sizes are never
// negative: for n < 0 or unit <= 0 both results are n.
func NearestMultiple(n, unit int64) (below, above int64) {
	if n < 0 || unit <= 0 {
		return n, n
	}
	r := n % unit
	below = n - r
	if r == 0 {
		return n, n
	}
	if below > maxInt64-unit {
		return below, below
	}
	return below, below + unit
}

const maxInt64 = 1<<63 - 1
