package units

import (
	"math"
	"math/rand"
	"testing"
)

func TestFormatSize(t *testing.T) {
	cases := []struct {
		n    int64
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{512, "512B"},
		{1023, "1023B"},
		{1024, "1KiB"},
		{1536, "1536B"},
		{3 << 10, "3KiB"},
		{16 << 20, "16MiB"},
		{16<<20 + 1024, "16385KiB"},
		{1 << 30, "1GiB"},
		{3 << 29, "1536MiB"},
		{8 << 40, "8TiB"},
		{1 << 50, "1PiB"},
		{1 << 62, "4096PiB"},
		{math.MaxInt64, "9223372036854775807B"},
		{-2048, "-2KiB"},
		{math.MinInt64, "-8192PiB"},
	}
	for _, c := range cases {
		if got := FormatSize(c.n); got != c.want {
			t.Errorf("FormatSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestSizeRoundTrip checks FormatSize and ParseSize against each other on
// values with few low bits (the shapes real sizes have) and on arbitrary ones.
func TestSizeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		var n int64
		if i%2 == 0 {
			n = rng.Int63n(1<<13) << uint(rng.Intn(50))
		} else {
			n = rng.Int63()
		}
		s := FormatSize(n)
		back, err := ParseSize(s)
		if err != nil || back != n {
			t.Fatalf("FormatSize(%d) = %q, ParseSize gives %d, %v", n, s, back, err)
		}
	}
}

func TestFormatRate(t *testing.T) {
	cases := []struct {
		bps  float64
		want string
	}{
		{2.13e9, "2.13 GB/s"},
		{2.134e9, "2.13 GB/s"},
		{2.136e9, "2.14 GB/s"},
		{999.7e6, "1.00 GB/s"},
		{999.4e6, "999 MB/s"},
		{12.34e6, "12.3 MB/s"},
		{9.996e6, "10.0 MB/s"},
		{1500, "1.50 kB/s"},
		{999, "999 B/s"},
		{0, "0.00 B/s"},
		{3.2e12, "3.20 TB/s"},
		{5e18, "5000 PB/s"},
		{-2.5e9, "-2.50 GB/s"},
		{math.NaN(), "NaN B/s"},
	}
	for _, c := range cases {
		if got := FormatRate(c.bps); got != c.want {
			t.Errorf("FormatRate(%g) = %q, want %q", c.bps, got, c.want)
		}
	}
}

func TestFormatRateGiB(t *testing.T) {
	cases := []struct {
		bps  float64
		want string
	}{
		{2.13e9, "1.98 GiB/s"},
		{1 << 30, "1.00 GiB/s"},
		{1000 << 20, "1000 MiB/s"},
		{1023.7 * (1 << 20), "1.00 GiB/s"},
		{1536, "1.50 KiB/s"},
		{100 << 20, "100 MiB/s"},
		{1 << 40, "1.00 TiB/s"},
		{math.Inf(1), "+Inf B/s"},
	}
	for _, c := range cases {
		if got := FormatRateGiB(c.bps); got != c.want {
			t.Errorf("FormatRateGiB(%g) = %q, want %q", c.bps, got, c.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	cases := []struct {
		ns   int64
		want string
	}{
		{0, "0ns"},
		{85, "85ns"},
		{999, "999ns"},
		{1000, "1.00µs"},
		{412_000, "412µs"},
		{412_400, "412µs"},
		{999_600, "1.00ms"},
		{1_200_000, "1.20ms"},
		{12_340_000, "12.3ms"},
		{3_400_000_000, "3.40s"},
		{3_456_000_000, "3.46s"},
		{1_234_000_000_000, "1234s"},
		{-1_500_000, "-1.50ms"},
		{-85, "-85ns"},
	}
	for _, c := range cases {
		if got := FormatDuration(c.ns); got != c.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestFormatBinary(t *testing.T) {
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
		if got := FormatBinary(c.in); got != c.want {
			t.Errorf("FormatBinary(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The report's latency columns: the largest unit that keeps the number
// at or above 1, seconds without limit, and means that need not be whole.
func TestFormatNanos(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0ns"}, {850, "850ns"}, {850.4, "850ns"}, {999, "999ns"}, {1000, "1.00µs"}, {12_345, "12.3µs"},
		{999_960, "1.00ms"}, {4_560_000, "4.56ms"}, {105_000_000, "105ms"},
		{1_500_000_000, "1.50s"}, {1_250 * 1_000_000_000, "1250s"}, {-3_000_000, "-3.00ms"},
		{9_996_000, "10.0ms"}, {99_960_000, "100ms"},
	}
	for _, c := range cases {
		if got := FormatNanos(c.in); got != c.want {
			t.Errorf("FormatNanos(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := FormatDuration(math.MinInt64); got != "-9223372037s" {
		t.Errorf("FormatDuration(MinInt64) = %q", got)
	}
}

func TestFormatBytes(t *testing.T) {
	const gib = int64(1) << 30
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1536: "1.50 KiB", 200 << 20: "200 MiB", 5 * gib / 2: "2.50 GiB",
		40 * gib: "40.0 GiB", 3 << 39: "1.50 TiB", 1<<20 - 1: "1.00 MiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
