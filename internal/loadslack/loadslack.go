// Package loadslack lets a test's timing bound scale with the machine it
// runs on: it measures how late the kernel wakes a sleeping thread right
// now, which is near zero on an idle machine and tens of milliseconds on
// two cores shared by a dozen busy processes, whatever the code under
// test does. A bound taken from it fails only on lateness the machine's
// load does not explain.
//
// It imports the standard library only and is meant for tests.
package loadslack

import "time"

// tries is how many sleeps Oversleep takes. The worst of them is the
// figure: the thing a test times is one wake-up drawn from the same load,
// and the best of five (the first rule here) let a whole suite run beside
// two CPU hogs fail a release bound by 8 ms against a bound of 5.3 ms. On
// an idle machine the worst of five is still a fraction of a millisecond,
// so a bound keeps its power there.
const tries = 5

// Oversleep is how much longer than asked a 1 ms sleep took, at worst of
// five tries, now.
func Oversleep() time.Duration {
	var worst time.Duration
	for range tries {
		begin := time.Now()
		time.Sleep(time.Millisecond)
		worst = max(worst, time.Since(begin)-time.Millisecond)
	}
	return worst
}

// Factor is how many oversleeps a bound allows on top of its idle figure:
// the thing timed wakes more than one thread, and the load may have been
// a little higher while it ran than when Oversleep measured it.
const Factor = 4

// Bound is idle, a bound that holds on an idle machine, widened by
// Factor times the machine's oversleep now.
func Bound(idle time.Duration) time.Duration {
	return idle + Factor*Oversleep()
}
