package barrier

import (
	"context"
	"testing"
	"time"

	"ioswarm/clock"
	"ioswarm/internal/loadslack"

	"ioswarm/internal/fakerank"
)

// TestClockOffset gives one rank a clock 3 hours ahead, as a time namespace
// would, and checks the probe finds the shift within its own error bound,
// at join and again through ProbeClocks.
func TestClockOffset(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	const shift = int64(3 * time.Hour)
	c := startCoordinator(t, testConfig(2, &fakerank.Log{}))
	startRank(t, c.Addr().String(), 0, fastOptions(), echo)
	ahead := fastOptions()
	ahead.Now = func() int64 { return clock.Now() + shift }
	startRank(t, c.Addr().String(), 1, ahead, echo)

	check := func(when string, infos []MemberInfo) {
		t.Helper()
		// Slack covers the reader's scheduling between the two clock reads
		// that bracket the rank's reading on a loaded machine.
		const slack = int64(time.Millisecond)
		for r, want := range []int64{0, shift} {
			info := infos[r]
			t.Logf("%s: rank %d offset %d ns ± %d ns", when, r, info.ClockOffset, info.ClockError)
			// 5 ms idle; a loaded machine answers the probes later.
			if bound := loadslack.Bound(5 * time.Millisecond); info.ClockError <= 0 || info.ClockError >= int64(bound) {
				t.Errorf("%s: rank %d error bound %d ns is not a small positive loopback figure (under %v)", when, r, info.ClockError, bound)
			}
			if d := abs(info.ClockOffset - want); d > info.ClockError+slack {
				t.Errorf("%s: rank %d offset %d ns is %d ns from %d", when, r, info.ClockOffset, d, want)
			}
		}
		if got := infos[1].FromRank(infos[1].ToRank(12345)); got != 12345 {
			t.Errorf("ToRank/FromRank do not invert: %d", got)
		}
	}
	check("join", join(t, c))
	infos, err := c.ProbeClocks(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	check("reprobe", infos)
}

// TestEstimateOffset checks the arithmetic on made-up samples: the sample
// with the smallest round trip wins, whatever its position, and the bound
// is half its round trip, rounded up.
func TestEstimateOffset(t *testing.T) {
	fakerank.Guard(t, 30*time.Second)
	samples := []pong{
		{sent: 1000, rank: 50_000, recv: 1400}, // rtt 400
		{sent: 2000, rank: 51_050, recv: 2101}, // rtt 101: the one to use
		{sent: 3000, rank: 60_000, recv: 3900}, // rtt 900
	}
	offset, bound := estimateOffset(samples)
	if offset != 51_050-2050 || bound != 51 {
		t.Fatalf("offset %d bound %d, want %d and 51", offset, bound, 51_050-2050)
	}
	// A rank clock behind the coordinator's gives a negative offset.
	offset, _ = estimateOffset([]pong{{sent: 10_000, rank: 4_000, recv: 10_200}})
	if offset != 4_000-10_100 {
		t.Fatalf("offset %d", offset)
	}
}

// The conversions go by the offset's definition (rank clock −
// coordinator clock): a rank 3 h ahead reads 3 h more, both ways.
func TestMemberInfoConversions(t *testing.T) {
	const ahead = int64(3 * time.Hour)
	m := MemberInfo{ClockOffset: ahead}
	if got := m.ToRank(10); got != ahead+10 {
		t.Errorf("ToRank(10) = %d, want %d", got, ahead+10)
	}
	if got := m.FromRank(ahead + 10); got != 10 {
		t.Errorf("FromRank(%d) = %d, want 10", ahead+10, got)
	}
}
