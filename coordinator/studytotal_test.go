package coordinator

import "testing"

// A series' --total auto is at least twice the caches and divides into
// whole records at every thread count of the series, so each point
// moves the same aggregate.
func TestSeriesTotal(t *testing.T) {
	const mib = int64(1 << 20)
	for _, c := range []struct {
		cache, server int64
		threads       []int
		want          int64
	}{
		{1024 * mib, 0, []int{1, 2, 4, 8}, 2048 * mib},     // 128 MiB units: exact
		{1024 * mib, 0, []int{1, 3}, 43 * 48 * mib},        // 48 MiB units: rounded up
		{1000 * mib, 24 * mib, []int{1, 2, 6}, 2112 * mib}, // 96 MiB units over 2 GiB
		{0, 0, []int{4, 8}, 8 * 16 * mib},                  // no cache: one record per thread
	} {
		got := seriesTotal(c.cache, c.server, c.threads, 16*mib, 4096)
		if got != c.want {
			t.Errorf("cache %d server %d threads %v: %d, want %d", c.cache, c.server, c.threads, got, c.want)
		}
		for _, n := range c.threads {
			if got%(int64(n)*16*mib) != 0 || got < 2*(c.cache+c.server) {
				t.Errorf("threads %v: %d is not whole records at %d threads, or under twice the caches", c.threads, got, n)
			}
		}
	}
}
