package coordinator

import (
	"testing"
	"time"

	"ioswarm/barrier"
	"ioswarm/wire"
)

// A rank whose clock runs 3 h ahead of the coordinator's (a time
// namespace) reports a thread that ran from coordinator time 1 s to 2 s
// as 3 h + 1 s to 3 h + 2 s; converted, the record reads 1 s to 2 s
// again, and a release the coordinator sets at 5 s reaches the rank as
// 3 h + 5 s. A flipped sign in either direction is 6 h off.
func TestRankTimesConvertByTheOffset(t *testing.T) {
	const ahead = int64(3 * time.Hour)
	sec := int64(time.Second)
	m := barrier.MemberInfo{Rank: 2, Host: "node2", ClockOffset: ahead}
	rep := wire.RunReply{ReleasedAt: ahead + sec/2, Threads: []wire.ThreadRecord{
		{Thread: 5, File: "t5.dat", Bytes: 100, Ops: 1, StartNS: ahead + sec, EndNS: ahead + 2*sec},
	}}
	rel, threads := onCoordinatorClock(2, m, "node2", rep)
	if rel != sec/2 {
		t.Errorf("released at %d ns on the coordinator's clock, want %d", rel, sec/2)
	}
	if len(threads) != 1 {
		t.Fatalf("%d threads, want 1", len(threads))
	}
	th := threads[0]
	if th.StartNS != sec || th.EndNS != 2*sec {
		t.Errorf("thread ran %d..%d ns on the coordinator's clock, want %d..%d", th.StartNS, th.EndNS, sec, 2*sec)
	}
	if th.Host != "node2" || th.Rank != 2 || th.Thread != 5 || th.Bytes != 100 {
		t.Errorf("record %+v", th)
	}
	if got := m.ToRank(5 * sec); got != ahead+5*sec {
		t.Errorf("release at 5 s reaches the rank as %d ns, want %d", got, ahead+5*sec)
	}
}

// A release set at one coordinator moment reaches each rank as its own
// clock's reading of it, and the rank's release moment comes back through
// the same offset: what is left is how late each rank's first thread
// woke. Two ranks 3 h apart in clock, 2 ms and 7 ms late, give release
// moments 5 ms apart, whatever their offsets: the release skew is the
// ranks' lateness, not clock error.
func TestReleaseMomentsHoldOnlyLateness(t *testing.T) {
	const release = int64(10 * time.Second)
	ms := int64(time.Millisecond)
	var got []int64
	for _, c := range []struct {
		offset, late int64
	}{{int64(3 * time.Hour), 2 * ms}, {-int64(5 * time.Second), 7 * ms}} {
		m := barrier.MemberInfo{ClockOffset: c.offset}
		rel, _ := onCoordinatorClock(0, m, "n", wire.RunReply{ReleasedAt: m.ToRank(release) + c.late})
		got = append(got, rel)
	}
	if got[0] != release+2*ms || got[1] != release+7*ms {
		t.Errorf("release moments %d, %d ns on the coordinator's clock; want the release plus 2 ms and 7 ms", got[0], got[1])
	}
}
