package study

import "testing"

// The I/O a chart's title and a report's settings name, from the setup.
func TestIOTextNamesHowTheDataWent(t *testing.T) {
	for _, c := range []struct {
		direct, osync bool
		want          string
	}{
		{false, false, "buffered"},
		{true, false, "O_DIRECT"},
		{false, true, "buffered, O_SYNC"},
		{true, true, "O_DIRECT, O_SYNC"},
	} {
		s := &Sweep{Setup: Setup{Direct: c.direct, OSync: c.osync}}
		if got := s.IOText(); got != c.want {
			t.Errorf("direct %v, o_sync %v: %q, want %q", c.direct, c.osync, got, c.want)
		}
	}
}
