package clock

import (
	"context"
	"testing"
	"time"
)

// Now must track the raw system clock: the anchor trick is only valid if Go's
// monotonic clock is CLOCK_MONOTONIC.
func TestNowMatchesRawClock(t *testing.T) {
	for i := 0; i < 5; i++ {
		a := Raw()
		n := Now()
		b := Raw()
		// Generous: a descheduled thread between the reads widens [a, b].
		if n < a-int64(time.Millisecond) || n > b+int64(time.Millisecond) {
			t.Fatalf("Now()=%d outside raw readings [%d, %d]", n, a, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSleepUntil(t *testing.T) {
	at := Now() + int64(20*time.Millisecond)
	if err := SleepUntil(context.Background(), at); err != nil {
		t.Fatal(err)
	}
	if Now() < at {
		t.Fatal("woke before the deadline")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SleepUntil(ctx, Now()+int64(time.Hour)); err == nil {
		t.Fatal("cancelled sleep returned nil")
	}
}
