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

	"golang.org/x/sys/unix"
)

// anchor pairs one raw CLOCK_MONOTONIC reading with Go's monotonic reading
// of the same instant. Go's runtime reads CLOCK_MONOTONIC through the vDSO,
// so anchor.raw + time.Since(anchor.at) is CLOCK_MONOTONIC without a system
// call per reading (x/sys's ClockGettime is a real syscall, which would cost
// measurable time per 4 KiB operation). It is written once, at start-up.
var anchor = newAnchor()

type anchorPoint struct {
	raw int64
	at  time.Time
}

func newAnchor() anchorPoint {
	var ts unix.Timespec
	at := time.Now()
	// ClockGettime on CLOCK_MONOTONIC cannot fail on Linux.
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return anchorPoint{raw: ts.Nano(), at: at}
}

// Now returns CLOCK_MONOTONIC in nanoseconds.
func Now() int64 {
	return anchor.raw + int64(time.Since(anchor.at))
}

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
