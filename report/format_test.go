package report

import "testing"

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
