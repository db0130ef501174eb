package units

import (
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestParseSizeValid(t *testing.T) {
	cases := []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"4096", 4096},
		{"512B", 512},
		{"512b", 512},
		{"16M", 16 << 20},
		{"16m", 16 << 20},
		{"16MiB", 16 << 20},
		{"16mib", 16 << 20},
		{"16 MiB", 16 << 20},
		{"  4k  ", 4096},
		{"1KiB", 1024},
		{"8T", 8 << 40},
		{"8TiB", 8 << 40},
		{"2G", 2 << 30},
		{"3GiB", 3 << 30},
		{"1P", 1 << 50},
		{"7PiB", 7 << 50},
		{"1.5G", 3 << 29},
		{"1.5K", 1536},
		{"0.5K", 512},
		{"1.25M", 1310720},
		{"1.500000K", 1536},
		{"007K", 7 << 10},
		{"8191P", 8191 << 50},
		{"9223372036854775807", math.MaxInt64},
		{"9223372036854775807B", math.MaxInt64},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if err != nil {
			t.Errorf("ParseSize(%q): unexpected error %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("ParseSize(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestParseSizeErrors(t *testing.T) {
	cases := []struct {
		in      string
		wantMsg string // substring the message must hold
	}{
		{"", `invalid size "": empty`},
		{"   ", "empty"},
		{"12Q", `invalid size "12Q": unknown suffix "Q" (use K, M, G, T, P or KiB..PiB)`},
		{"16MB", `"MB" is ambiguous`},
		{"16mb", `write "M" or "MiB"`},
		{"1KB", `write "K" or "KiB"`},
		{"2GB", `write "G" or "GiB"`},
		{"8TB", `write "T" or "TiB"`},
		{"1PB", `write "P" or "PiB"`},
		{"-4K", "negative"},
		{"-0", "negative"},
		{"+4K", "expected a number"},
		{"M", "expected a number"},
		{".5M", "expected a number"},
		{"1.M", "expected a number"},
		{"1..5M", "expected a number"},
		{"0.3K", "0.3 × 1024 is not a whole number of bytes"},
		{"1.5", "1.5 is not a whole number of bytes"},
		{"1.5B", "not a whole number"},
		{"8192P", "too large"},
		{"9223372036854775808", "too large"},
		{"99999999999999999999999T", "too large"},
		{"1e6", `unknown suffix "e6"`},
		{"16 M B", `unknown suffix "M B"`},
		{"0x10", `unknown suffix "x10"`},
		{"16Ki", `unknown suffix "Ki"`},
		{strings.Repeat("1", 65), "longer than 64"},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error holding %q", c.in, got, c.wantMsg)
			continue
		}
		if !strings.Contains(err.Error(), c.wantMsg) {
			t.Errorf("ParseSize(%q) error %q does not hold %q", c.in, err, c.wantMsg)
		}
		var se *SizeError
		if !errors.As(err, &se) || se.Input != c.in {
			t.Errorf("ParseSize(%q): error %v is not a *SizeError naming the input", c.in, err)
		}
	}
}

func TestNearestMultiple(t *testing.T) {
	cases := []struct {
		n, unit, below, above int64
	}{
		{100 << 20, 16 << 20, 96 << 20, 112 << 20},
		{64 << 20, 16 << 20, 64 << 20, 64 << 20},
		{5, 16, 0, 16},
		{0, 16, 0, 0},
		{17, 1, 17, 17},
		{math.MaxInt64, 1 << 20, math.MaxInt64 - (1<<20 - 1), math.MaxInt64 - (1<<20 - 1)},
		{-5, 16, -5, -5},
		{5, 0, 5, 5},
		{5, -4, 5, 5},
	}
	for _, c := range cases {
		b, a := NearestMultiple(c.n, c.unit)
		if b != c.below || a != c.above {
			t.Errorf("NearestMultiple(%d, %d) = %d, %d; want %d, %d", c.n, c.unit, b, a, c.below, c.above)
		}
	}
}

// TestNearestMultipleProperties checks, over random inputs, that the results
// are multiples that bracket n with nothing valid in between.
func TestNearestMultipleProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 10000; i++ {
		n := rng.Int63n(1 << 40)
		unit := rng.Int63n(1<<24) + 1
		b, a := NearestMultiple(n, unit)
		if b%unit != 0 || a%unit != 0 || b > n || a < n || a-b > unit {
			t.Fatalf("NearestMultiple(%d, %d) = %d, %d", n, unit, b, a)
		}
		if (n%unit == 0) != (a == b) {
			t.Fatalf("NearestMultiple(%d, %d) = %d, %d: equality must mean n is a multiple", n, unit, b, a)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"16M", "1.5G", "0.3K", "16MB", "-1", "8T", "9223372036854775807", "1.5KiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseSize(%q) returned %d with error %v", s, n, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		f := FormatSize(n)
		back, err := ParseSize(f)
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d; FormatSize gives %q, which reads back as %d, %v", s, n, f, back, err)
		}
	})
}
