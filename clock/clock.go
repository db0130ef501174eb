// Package clock reads CLOCK_MONOTONIC as absolute nanoseconds.
//
// Go's time package keeps its monotonic reading private, but ranks must send
// raw monotonic timestamps to the coordinator, which converts them through a
// measured offset. CLOCK_MONOTONIC is immune to NTP steps and is the clock a
// time namespace shifts, which is how the tests prove the conversion.
package clock

import (
	"context"
	"time"
	_ "unsafe" // go:linkname

	"golang.org/x/sys/unix"
)

// nanotime is the Go runtime's own CLOCK_MONOTONIC reading, through the
// vDSO (x/sys's ClockGettime is a real system call, which would cost
// measurable time per 4 KiB operation). Unlike time.Now and time.Since it
// is a leaf that never checks its stack: a goroutine the runtime has asked
// to yield (one that ran 10 ms without passing through the scheduler, as a
// worker in a long raw system call does) yields at the next function that
// checks, and when that was the clock reading just after such a call, the
// hand-off of its locked thread (milliseconds on a busy CPU) fell inside
// the figure the reading ended.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Now returns CLOCK_MONOTONIC in nanoseconds.
func Now() int64 { return nanotime() }

// Raw reads CLOCK_MONOTONIC with a system call; tests use it to check Now.
func Raw() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// SleepUntil blocks until Now() >= at or ctx is done. It sleeps most of the
// way and spins the last stretch so a release lands within microseconds.
func SleepUntil(ctx context.Context, at int64) error {
	const spin = int64(300 * time.Microsecond)
	for {
		d := at - Now()
		if d <= 0 {
			return nil
		}
		if d > spin {
			t := time.NewTimer(time.Duration(d - spin))
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}
