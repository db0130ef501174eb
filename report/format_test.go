package report

import (
	"math"
	"testing"
)

func TestBinaryBytes(t *testing.T) {
	cases := []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.50 KiB"},
		{16 << 20, "16 MiB"}, {256 << 20, "256 MiB"}, {1 << 30, "1 GiB"},
		{32768000, "31.25 MiB"}, {3 << 40, "3 TiB"}, {-2048, "-2 KiB"},
		{math.MaxInt64, "8.00 EiB"}, {math.MinInt64, "-8 EiB"},
	}
	for _, c := range cases {
		if got := binaryBytes(c.in); got != c.want {
			t.Errorf("binaryBytes(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestHumanNS(t *testing.T) {
	cases := []struct {
		in   int64
		want string
	}{
		{0, "0ns"}, {850, "850ns"}, {999, "999ns"}, {1000, "1.00µs"}, {12_345, "12.3µs"},
		{999_960, "1.00ms"}, {4_560_000, "4.56ms"}, {105_000_000, "105ms"},
		{1_500_000_000, "1.50s"}, {1_250 * 1_000_000_000, "1250s"}, {-3_000_000, "-3.00ms"},
		{math.MinInt64, "-9223372037s"},
	}
	for _, c := range cases {
		if got := humanNS(c.in); got != c.want {
			t.Errorf("humanNS(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRates(t *testing.T) {
	// 80 MB/s is 0.080 GB/s and 80e6/2^30 = 0.0745 GiB/s.
	if got := gb(80e6); got != "0.080" {
		t.Errorf("gb(80e6) = %q", got)
	}
	if got := gib(80e6); got != "0.075" {
		t.Errorf("gib(80e6) = %q", got)
	}
	if got := gb(1e308); got != "1e+299" {
		t.Errorf("gb(1e308) = %q, want exponent form", got)
	}
	if got := percent(0.031); got != "3.1%" {
		t.Errorf("percent(0.031) = %q", got)
	}
	if got := exact(612760980.0227618); got != "612760980.0227618" {
		t.Errorf("exact lost digits: %q", got)
	}
}
