package study

import "testing"

// The I/O a chart's title and a report's settings name, from the setup.
func TestIOTextNamesHowTheDataWent(t *testing.T) {
	for _, c := range []struct {
		direct, osync, odsync bool
		want                  string
	}{
		{false, false, false, "buffered"},
		{true, false, false, "O_DIRECT"},
		{false, true, false, "buffered, O_SYNC"},
		{true, true, false, "O_DIRECT, O_SYNC"},
		{false, false, true, "buffered, O_DSYNC"},
		{true, false, true, "O_DIRECT, O_DSYNC"},
	} {
		s := &Sweep{Setup: Setup{Direct: c.direct, OSync: c.osync, ODSync: c.odsync}}
		if got := s.IOText(); got != c.want {
			t.Errorf("direct %v, o_sync %v, o_dsync %v: %q, want %q", c.direct, c.osync, c.odsync, got, c.want)
		}
	}
}
