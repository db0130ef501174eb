package rank

import "testing"

func TestOpLogExactWhileSmall(t *testing.T) {
	var l opLog
	l.reset(10, 16)
	for i := int64(1); i <= 10; i++ {
		l.add(i, i*100)
	}
	cases := map[int64]int64{0: 0, 99: 0, 100: 1, 550: 5, 1000: 10, 5000: 10}
	for at, want := range cases {
		if got := l.opsAt(at); got != want {
			t.Errorf("opsAt(%d) = %d, want %d", at, got, want)
		}
	}
}

func TestOpLogCompactsAndStaysWithinStride(t *testing.T) {
	var l opLog
	l.reset(1000, 8)
	for i := int64(1); i <= 1000; i++ {
		l.add(i, i*10)
	}
	if len(l.t) > 8 {
		t.Fatalf("log grew to %d entries, cap 8", len(l.t))
	}
	for _, at := range []int64{5, 999, 3333, 7777, 10000} {
		exact := at / 10
		got := l.opsAt(at)
		if got > exact || exact-got >= l.stride {
			t.Errorf("opsAt(%d) = %d, exact %d, stride %d", at, got, exact, l.stride)
		}
	}
}
