package rank

import (
	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/wire"
)

// cpuMeter measures the CPU time (user + system) a worker's own OS thread
// spends on a phase, for IOzone's -+u: IOzone's child reads
// getrusage(RUSAGE_SELF) user + system when its timer starts and again
// once it has finished its file, and each child is a process of its own,
// so that is the child's own CPU time and nobody else's. A worker is a
// goroutine locked to its OS thread, so the thread's own CPU clock is the
// same measure for it (RUSAGE_SELF here would be the whole rank's: every
// thread's and the session's).
//
// The clock is CLOCK_THREAD_CPUTIME_ID rather than getrusage(RUSAGE_THREAD):
// both count the thread's run time, user and system together (Linux
// scales getrusage's two parts so that they add up to it), but getrusage
// of a running thread only knows what the scheduler accounted at its last
// tick or switch, up to a tick behind, while the clock reads it to the
// nanosecond. That matters because the interval comes in segments: the
// thread is let go to pass through the scheduler (yield, every few ms),
// where the goroutine may come back on another OS thread, so the meter
// closes its segment before and opens a new one after. It only ever
// subtracts two readings of one thread, and whatever other goroutines
// the released thread runs counts nowhere.
//
// The interval is IOzone's: from the start of the thread's timed part to
// the end of its work on the file, a stopped writer's untimed rest
// included (IOzone's writer finishes its file before it reads its CPU
// time; its wall time runs over the same span). The record gets that span
// on the rank's clock beside the CPU time, so the CPU time and the wall
// time it is divided by are read together.
type cpuMeter struct {
	on      bool  // metering: the worker's goroutine is locked to its thread
	cpu     int64 // CPU of the closed segments, ns
	segFrom int64 // the thread's clock when the open segment began
	startNS int64 // rank clock at the interval's start
	inSeg   bool  // a segment is open
}

// threadCPU is the calling OS thread's CPU time so far, user and system,
// in ns; -1 if the clock cannot be read.
func threadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}

// begin starts the interval at rank time now, on the calling thread. A
// worker whose goroutine is not locked to its thread (locked false: only
// tests drive one so) is not metered: its readings could come from
// different threads.
func (c *cpuMeter) begin(locked bool, now int64) {
	*c = cpuMeter{on: locked, startNS: now}
	if locked {
		c.resume()
	}
}

// pause closes the open segment, before the goroutine lets its thread go.
func (c *cpuMeter) pause() {
	if !c.inSeg {
		return
	}
	now := threadCPU()
	// A thread's clock never goes back; a failed reading adds nothing
	// rather than a negative time.
	if now >= 0 && c.segFrom >= 0 {
		c.cpu += max(now-c.segFrom, 0)
	}
	c.inSeg = false
}

// resume opens a segment on the thread the goroutine is locked to now.
func (c *cpuMeter) resume() {
	if !c.on {
		return
	}
	c.segFrom = threadCPU()
	c.inSeg = true
}

// end closes the interval at the end of the thread's work and puts it in
// rec: the CPU time and the wall time it was taken over. A worker that
// never began (a phase that failed before its start) records nothing.
func (c *cpuMeter) end(rec *wire.ThreadRecord) {
	if !c.on || c.startNS == 0 {
		return
	}
	c.pause()
	now := clock.Now()
	rec.CPUNS, rec.CPUWallNS = c.cpu, now-c.startNS
	c.on = false
}

// yieldMetered is yield for a worker inside its phase: the CPU meter's
// segment is closed while the thread may be let go.
func (w *worker) yieldMetered(p *phaseParams) {
	locked := w.unlockable(p)
	if locked {
		w.cpu.pause()
	}
	yield(locked)
	if locked {
		w.cpu.resume()
	}
}
