package rank

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/uring"
)

// ringLoop is one run of a job on a worker's ring: what has been issued
// and completed, and whether the loop is still timing or winding down.
type ringLoop struct {
	w   *worker
	p   *phaseParams
	fd  int
	u   *uringIO
	job uringJob
	op  uint8

	issued, completed, timedOps int64
	inflight                    int
	timed                       bool  // the stonewall has not yet ended the timing
	stopping                    bool  // issue no more; drain what is in flight
	err                         error // the first error (errStopped may give way to a real one)
	depth                       kernelDepth
}

// run issues and completes until nothing is left in flight.
func (l *ringLoop) run() error {
	for {
		for l.issue() {
		}
		if l.inflight == 0 {
			return l.err
		}
		// Several queued at once (the first fill): handed over in an entry
		// that waits for nothing, then waited for, so the kernel's taking
		// them spans an entry of its own (see kernelDepth.entered).
		if l.u.r.Pending() > 1 {
			if err := l.enter(0); err != nil {
				return err
			}
		}
		if err := l.enter(1); err != nil {
			return err
		}
		if err := l.reap(); err != nil {
			return err
		}
	}
}

// enter submits what is queued and waits for wait completions. The clock
// readings bracket the kernel's entry closely (nothing between them and
// the call checks its stack, see rawcall.go), for the depth the kernel
// held over time and for when the completions it posted became known.
func (l *ringLoop) enter(wait uint32) error {
	r := l.u.r
	before, submitted := r.InKernel(), r.Submitted()
	t0 := clock.Now()
	err := r.SubmitAndWait(wait)
	t1 := clock.Now()
	if err != nil {
		return fmt.Errorf("%s %s: %w", l.p.name, l.job.src.path, err)
	}
	l.depth.entered(t0, t1, before, int(r.Submitted()-submitted), r.InKernel(), wait > 0)
	_, tail := r.Ready()
	l.u.post.entered(tail, t1)
	return nil
}

// issue queues the next operation in a free slot, if work is left, and
// says whether it did.
func (l *ringLoop) issue() bool {
	if l.inflight == l.u.depth || l.issued == l.job.total || l.stopping || l.err != nil {
		return false
	}
	if l.p.stop.Load() {
		l.stopping, l.err = true, errStopped
		return false
	}
	u := l.u
	slot := u.free[len(u.free)-1]
	u.free = u.free[:len(u.free)-1]
	off := l.job.next()
	buf := slotBuffer(u, slot, off, l.job)
	if l.job.write {
		l.w.putPattern(buf, off, l.job)
	}
	u.off[slot], u.done[slot] = off, 0
	u.start[slot] = clock.Now()
	u.r.Prepare(l.op, l.fd, slot, buf, off, uint64(slot))
	l.inflight++
	l.issued++
	u.depthSum += int64(l.inflight)
	u.depthN++
	u.depthMax = max(u.depthMax, l.inflight)
	return true
}

// reap completes every completion ready, each timed at the return of the
// entry that posted it. Each completion's slot goes back to the device at
// once, not when the whole batch has been looked at: refilled in bursts,
// the queue drains between them, and the device's own batching then keeps
// the bursts going (half the depth on average, 0.7× fio's IOPS at depth 32
// on one thread). The last of the batch is the exception: its refill goes
// with the wait for the next completion, in the same entry into the
// kernel, at once all the same. Submitted on its own, every batch cost two
// entries, at depth 1 two per operation where fio makes one.
func (l *ringLoop) reap() error {
	head, tail := l.u.r.Ready()
	l.u.post.noticed(tail, clock.Now)
	for ; head != tail; head++ {
		if !l.complete(l.u.r.At(head), l.u.post.at(head)) {
			continue // its slot is still in flight: nothing to refill
		}
		if l.issue() && head+1 != tail {
			if err := l.enter(0); err != nil {
				return err
			}
		}
	}
	l.u.r.Consumed(tail)
	return nil
}

// complete settles one completion known at t1 and says whether its slot
// is free again; a retry or the rest of a short transfer keeps the slot,
// queued again from where it stopped.
func (l *ringLoop) complete(c *uring.CQE, t1 int64) bool {
	u := l.u
	slot := uint16(c.UserData)
	rest := slotBuffer(u, slot, u.off[slot], l.job)[u.done[slot]:]
	switch res := c.Res; {
	case res == -int32(unix.EAGAIN) || res == -int32(unix.EINTR):
		u.r.Prepare(l.op, l.fd, slot, rest, u.off[slot]+u.done[slot], uint64(slot))
		return false
	case res < 0:
		if l.err == nil || errors.Is(l.err, errStopped) {
			l.err = fmt.Errorf("%s %s at offset %d: %w", l.p.name, l.job.src.path, u.off[slot], unix.Errno(-res))
		}
	case res == 0 && !l.job.write:
		if l.err == nil {
			l.err = fmt.Errorf("read %s: file ends early (EOF at offset %d)", l.job.src.path, u.off[slot]+u.done[slot])
		}
	case int(res) < len(rest):
		u.done[slot] += int64(res)
		u.r.Prepare(l.op, l.fd, slot, rest[res:], u.off[slot]+u.done[slot], uint64(slot))
		return false
	default:
		l.completed++
		l.account(slot, t1)
	}
	l.inflight--
	u.free = append(u.free, slot)
	return true
}

// account counts a whole operation in slot, known at t1: its bytes done,
// its data checked on a verified read, and while timing, its latency and
// the stonewall's verdict.
func (l *ringLoop) account(slot uint16, t1 int64) {
	if l.err != nil || l.stopping {
		return
	}
	job, w := l.job, l.w
	w.done.Store(l.completed * job.block)
	if !job.write && l.p.verify {
		buf := slotBuffer(l.u, slot, l.u.off[slot], job)
		if err := job.src.check(buf, l.u.off[slot]); err != nil {
			l.err = fmt.Errorf("verify %s: %w", job.src.path, err)
			return
		}
	}
	if l.timed {
		l.timedOps = l.completed
		l.timed = w.account(l.p, l.u.start[slot], t1, l.completed, l.completed*job.block, l.completed < job.total)
		l.stopping = !l.timed && !job.untimed
	}
}
