package iozone

import (
	"testing"

	"ioswarm/result"
)

// livePhase is three threads writing 8 MiB each in 1 MiB records under
// the live first-done stop:
//
//	thread 0: start 0 s, raised the stop at 3.5 s, fsync and close done at 4 s
//	thread 1: start 1 s, stopped with 4 MiB counted, its fsync and close
//	          done at 5 s; the rest written untimed by 9 s
//	thread 2: start 0 s, stopped with 2 MiB counted, done at 4.5 s; the
//	          rest untimed by 7 s
//
// Its timed records (bytes, end_ns) count the record that completed under
// the stop, which IOzone's xfer does not.
func livePhase(name string) *result.Phase {
	return &result.Phase{Name: name, FirstDoneNote: "a note for the after-the-fact account", Threads: []result.Thread{
		{Host: "n1", Thread: 0, Bytes: 8 * mib, Ops: 8, StartNS: 0, EndNS: 4 * sec,
			StonewallBytes: 8 * mib, StonewallOps: 8, StonewallEndNS: 4 * sec, RaisedStopNS: 35 * sec / 10},
		{Host: "n2", Thread: 1, Bytes: 5 * mib, Ops: 5, StartNS: 1 * sec, EndNS: 5 * sec,
			StonewallBytes: 4 * mib, StonewallOps: 4, StonewallEndNS: 5 * sec, UntimedEndNS: 9 * sec},
		{Host: "n1", Thread: 2, Bytes: 3 * mib, Ops: 3, StartNS: 0, EndNS: 45 * sec / 10,
			StonewallBytes: 2 * mib, StonewallOps: 2, StonewallEndNS: 45 * sec / 10, UntimedEndNS: 7 * sec},
	}}
}

// TestLinesLiveStop checks IOzone's figures from the live stop's records
// against numbers worked out by hand.
func TestLinesLiveStop(t *testing.T) {
	//   child 0: 8192 kB / 4 s     = 2048 kB/s
	//   child 1: 4096 kB / 4 s     = 1024 kB/s
	//   child 2: 2048 kB / 4.5 s   =  455.111.. kB/s
	//   Parent sees: 14336 kB over 0..9 s (the last untimed end) = 1592.888.. kB/s
	r, err := Lines(livePhase("write"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Children see", r.ChildrenSee, 2048+1024+2048/4.5)
	near(t, "Parent sees", r.ParentSees, 14336.0/9)
	near(t, "Min", r.Min, 2048/4.5)
	near(t, "Max", r.Max, 2048)
	near(t, "Min xfer", r.MinXfer, 2048)
	if r.CacheNote != "" {
		t.Errorf("cache note %q: the live stop fsyncs each child's file inside its time", r.CacheNote)
	}
	if r.Child[0].Stopped || !r.Child[1].Stopped || !r.Child[2].Stopped {
		t.Errorf("stopped flags %v %v %v, want only the children the stop reached", r.Child[0].Stopped, r.Child[1].Stopped, r.Child[2].Stopped)
	}
	// -O: operations counted when the stop reached each child.
	r, err = Lines(livePhase("randwrite"), true, true)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "-O Children see", r.ChildrenSee, 8.0/4+4.0/4+2/4.5)
	near(t, "-O Min xfer", r.MinXfer, 2)
	// -x: the timed records, whole and over each child's own time.
	r, err = Lines(livePhase("write"), false, false)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "-x Children see", r.ChildrenSee, 8192.0/4+5120.0/4+3072/4.5)
}

// A record whose stonewall account does not fit its timed one is refused.
func TestLinesLiveStopRejectsBadRecords(t *testing.T) {
	p := livePhase("write")
	p.Threads[1].StonewallBytes = 6 * mib
	if _, err := Lines(p, true, false); err == nil {
		t.Error("stonewall_bytes past the thread's bytes was accepted")
	}
}
