package rank

// postedAt remembers, for completions not yet reaped, when the entry into
// the kernel that posted them returned: the first moment the thread could
// know of them, and so where their latency ends. A loop reaps a batch of
// completions while refilling each slot in an entry of its own, and those
// entries post further completions; timed when the batch after is reaped,
// they would also hold the rest of this batch's work.
type postedAt struct {
	marks []postMark // from first on, in posting order; cap: depth+2
	first int
	tail  uint32 // the completion queue's tail the last mark covers
}

// postMark: the completions before tail were posted by at.
type postMark struct {
	tail uint32
	at   int64
}

func newPostedAt(depth int) postedAt { return postedAt{marks: make([]postMark, 0, depth+2)} }

// reset starts a loop on a ring whose completion queue's tail is tail.
func (p *postedAt) reset(tail uint32) {
	p.marks, p.first, p.tail = p.marks[:0], 0, tail
}

// entered notes an entry into the kernel that returned at t with the
// completion queue's tail at tail.
func (p *postedAt) entered(tail uint32, t int64) {
	if tail == p.tail {
		return
	}
	if len(p.marks) == cap(p.marks) {
		// Past first, each mark but one (the last reaped) covers a
		// completion not yet reaped, and no more than depth are in
		// flight: moved down, they leave room.
		p.marks = p.marks[:copy(p.marks, p.marks[p.first:])]
		p.first = 0
	}
	p.marks = append(p.marks, postMark{tail: tail, at: t})
	p.tail = tail
}

// noticed notes completions posted outside an entry (on a ring whose
// completions are not deferred to its thread's entries), seen now.
func (p *postedAt) noticed(tail uint32, now func() int64) {
	if tail != p.tail {
		p.entered(tail, now())
	}
}

// at is when the entry that posted completion i returned; the marks of
// completions before i are let go. The queue's indices wrap, so they are
// compared by their difference.
func (p *postedAt) at(i uint32) int64 {
	for p.first < len(p.marks)-1 && int32(p.marks[p.first].tail-i) <= 0 {
		p.first++
	}
	return p.marks[p.first].at
}
