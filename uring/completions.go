package uring

import "sync/atomic"

// InKernel is how many requests the kernel holds: handed to it and not
// yet posted to the completion queue, whether or not the caller has
// reaped the ones posted. It reads the queue's tail with an atomic load,
// which orders it after the kernel's release store of that tail, so
// every completion counted as posted is posted. A ring with deferred
// completions (SINGLE_ISSUER|DEFER_TASKRUN) posts only inside the
// owner's SubmitAndWait, so between two of them the count does not
// change; on other rings it may fall at any moment.
func (r *Ring) InKernel() int {
	return int(r.submitted - atomic.LoadUint32(r.cqTail))
}

// Submitted counts the requests the kernel has taken from the ring since
// it was made, modulo 2^32.
func (r *Ring) Submitted() uint32 { return r.submitted }

// Pending counts the requests prepared and not yet taken by the kernel.
func (r *Ring) Pending() int { return int(r.pending) }

// Deferred says whether completions are posted only when the owning
// thread enters the kernel (SubmitAndWait), which makes InKernel exact
// between entries.
func (r *Ring) Deferred() bool { return r.owned }

// Enters counts the ring's entries into the kernel (io_uring_enter calls),
// each a system call's cost; a loop's tests bound it per operation.
func (r *Ring) Enters() uint64 { return r.enters }

// ready returns the span [head, tail) of completions ready to be read
// with at; consumed(tail) then gives their slots back to the kernel. (No
// callback: a closure per operation could cost an allocation.)
func (r *Ring) Ready() (head, tail uint32) {
	return *r.cqHead, atomic.LoadUint32(r.cqTail) // only this thread moves the head
}

func (r *Ring) At(i uint32) *CQE { return &r.cqes[i&r.cqMask] }

func (r *Ring) Consumed(head uint32) { atomic.StoreUint32(r.cqHead, head) }
