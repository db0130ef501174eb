package loadslack

import (
	"testing"
	"time"
)

// A bound never shrinks below its idle figure, and the oversleep is a
// duration a 1 ms sleep can have (never negative; under a minute).
func TestBoundAtLeastIdle(t *testing.T) {
	o := Oversleep()
	if o < 0 || o > time.Minute {
		t.Fatalf("oversleep %v", o)
	}
	if b := Bound(5 * time.Millisecond); b < 5*time.Millisecond {
		t.Errorf("bound %v below the idle 5 ms", b)
	}
}
