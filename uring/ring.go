package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Ring is one io_uring instance through the raw system calls (no cgo, so
// the binary stays static): a submission queue of SQEs the thread fills,
// and a completion queue the kernel fills. Each benchmark thread owns one
// ring and is its only user, so the only synchronisation needed is with
// the kernel, through the rings' head and tail words.
type Ring struct {
	fd      int
	sqMem   []byte
	cqMem   []byte // the same mapping as sqMem with IORING_FEAT_SINGLE_MMAP
	sqeMem  []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqArray []uint32
	sqes    []sqe
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []CQE
	entries uint32
	pending uint32 // SQEs filled but not yet submitted
	// submitted counts the SQEs the kernel has taken since the ring was
	// made, modulo 2^32 like the completion queue's tail, which counts
	// the completions it posted from 0 (see InKernel).
	submitted uint32
	enters    uint64 // io_uring_enter calls made (Enters)
	single    bool   // one mapping holds both rings

	// owned: the ring was set up for a single issuing thread with its
	// completions deferred to that thread's entries into the kernel
	// (SINGLE_ISSUER|DEFER_TASKRUN, as fio sets them); it is created
	// disabled and Bind gives it to the calling thread.
	owned bool
	bound bool
	// raw: SubmitAndWait enters the kernel with RawSyscall6 (SetRawEnter).
	raw bool
}

// SetRawEnter makes SubmitAndWait enter the kernel directly, bypassing the
// Go runtime's system call entry and exit, whose exit can wait on the
// runtime's monitor thread for milliseconds when the CPUs are
// oversubscribed. The thread then keeps its P while it waits for
// completions, so the caller must keep the garbage collector from
// stopping the world meanwhile (a stop would wait for the wait) and have
// a P to spare for its other goroutines. A signal that cuts a wait short
// is retried as before.
func (r *Ring) SetRawEnter(on bool) { r.raw = on }

// ErrUnavailable marks a kernel or sandbox without io_uring.
var ErrUnavailable = errors.New("io_uring unavailable")

// New sets up a ring of at least entries submissions. Where the kernel
// allows it (6.1 on), the ring belongs to one thread: Bind must be called
// on the thread that will submit, locked to it, before the first Prepare.
func New(entries uint32) (*Ring, error) {
	// In the order tried, each kernel taking the first it knows:
	// - SINGLE_ISSUER|DEFER_TASKRUN: completions are posted only when the
	//   owning thread enters the kernel to look for them, in a batch, with
	//   no task work queued to it from interrupts: the least work per
	//   operation, and what fio asks for. The ring starts disabled, since
	//   it is made before the phase's threads run, and its thread enables
	//   it (Bind).
	// - COOP_TASKRUN (5.19): completions wait for the thread's next entry
	//   instead of interrupting it.
	// - nothing.
	var (
		p     uringParams
		fd    uintptr
		errno unix.Errno
	)
	for _, flags := range []uint32{setupRDisabled | setupSingleIssuer | setupDeferTaskrun | setupCoopTaskrun, setupCoopTaskrun, 0} {
		p = uringParams{flags: flags}
		fd, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
		if errno != unix.EINVAL {
			break
		}
	}
	if errno != 0 {
		return nil, uringSetupError(errno)
	}
	r := &Ring{fd: int(fd), entries: p.sqEntries, owned: p.flags&setupDeferTaskrun != 0}
	if p.sqEntries < entries {
		r.Close()
		return nil, fmt.Errorf("%w: asked for %d entries, got %d", ErrUnavailable, entries, p.sqEntries)
	}
	if err := r.mapRings(&p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Bind gives the ring to the calling thread, which alone submits to it
// from then on; the caller must stay locked to its OS thread
// (runtime.LockOSThread) for as long as it uses the ring. A second call
// does nothing, as does a call on a ring not set up for one thread.
func (r *Ring) Bind() error {
	if !r.owned || r.bound {
		return nil
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerEnableRings, 0, 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("io_uring: enable the ring: %w", errno)
	}
	r.bound = true
	return nil
}

// UringAvailable says whether this process can use io_uring: "" when it
// can, else the reason.
func Available() string {
	r, err := New(1)
	if err != nil {
		return err.Error()
	}
	r.Close()
	return ""
}

// uringSetupError says why io_uring_setup refused, in the words a user
// can act on.
func uringSetupError(errno unix.Errno) error {
	switch errno {
	case unix.ENOSYS:
		return fmt.Errorf("%w: the kernel has no io_uring (ENOSYS)", ErrUnavailable)
	case unix.EPERM:
		return fmt.Errorf("%w: refused (EPERM): kernel.io_uring_disabled is set, or a seccomp filter forbids it", ErrUnavailable)
	}
	return fmt.Errorf("%w: io_uring_setup: %v", ErrUnavailable, errno)
}

func (r *Ring) mapRings(p *uringParams) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(CQE{})))
	single := p.features&featSingleMmap != 0
	r.single = single
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	r.sqMem, err = unix.Mmap(r.fd, offSQRing, sqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("map the submission ring: %w", err)
	}
	r.cqMem = r.sqMem
	if !single {
		r.cqMem, err = unix.Mmap(r.fd, offCQRing, cqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
		if err != nil {
			return fmt.Errorf("map the completion ring: %w", err)
		}
	}
	sqeSize := int(p.sqEntries) * int(unsafe.Sizeof(sqe{}))
	r.sqeMem, err = unix.Mmap(r.fd, offSQEs, sqeSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("map the submission entries: %w", err)
	}
	sq, cq := unsafe.Pointer(&r.sqMem[0]), unsafe.Pointer(&r.cqMem[0])
	r.sqHead = (*uint32)(unsafe.Add(sq, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(sq, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(sq, p.sqOff.ringMask))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Add(sq, p.sqOff.array)), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Add(cq, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(cq, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(cq, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*CQE)(unsafe.Add(cq, p.cqOff.cqes)), p.cqEntries)
	return nil
}

func (r *Ring) Close() {
	if r.sqeMem != nil {
		_ = unix.Munmap(r.sqeMem)
	}
	if r.cqMem != nil && !r.single {
		_ = unix.Munmap(r.cqMem)
	}
	if r.sqMem != nil {
		_ = unix.Munmap(r.sqMem)
	}
	r.sqeMem, r.cqMem, r.sqMem = nil, nil, nil
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

// registerBufs registers bufs so fixed reads and writes skip mapping the
// pages on every operation.
func (r *Ring) RegisterBuffers(bufs [][]byte) error {
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		iov[i].Base = &b[0]
		iov[i].SetLen(len(b))
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerBuffers,
		uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)), 0, 0)
	if errno != 0 {
		return fmt.Errorf("io_uring register buffers: %w", errno)
	}
	return nil
}

// prepare fills the next submission entry; the caller has checked that a
// slot is free (it never has more in flight than the ring holds).
func (r *Ring) Prepare(op uint8, fd int, bufIndex uint16, buf []byte, off int64, userData uint64) {
	tail := *r.sqTail // only this thread writes the tail
	i := tail & r.sqMask
	e := &r.sqes[i]
	*e = sqe{opcode: op, fd: int32(fd), off: uint64(off),
		addr: uint64(uintptr(unsafe.Pointer(&buf[0]))), len: uint32(len(buf)), userData: userData, bufIndex: bufIndex}
	r.sqArray[i] = i
	atomic.StoreUint32(r.sqTail, tail+1) // publishes the entry to the kernel
	r.pending++
}

// submitAndWait submits what is pending and waits until at least wait
// completions are ready. It is nosplit, so that a goroutine the runtime
// asked to yield does not yield here, between the submission's stamps and
// the kernel (rank/rawcall.go says why that matters).
//
//go:nosplit
func (r *Ring) SubmitAndWait(wait uint32) error {
	flags := uintptr(0)
	// A ring with deferred completions posts them only on an entry that
	// asks for events, even one that waits for none.
	if wait > 0 || r.owned {
		flags = enterGetEvents
	}
	enter := unix.Syscall6
	if r.raw {
		enter = unix.RawSyscall6
	}
	for {
		n, _, errno := enter(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.pending), uintptr(wait), flags, 0, 0)
		r.enters++
		switch errno {
		case 0:
		case unix.EINTR:
			// A signal (the Go runtime's own, among others) cut the
			// wait short before anything was submitted: the kernel
			// reports a count instead when it had submitted some, and n
			// is no count here.
			continue
		case unix.EEXIST:
			return fmt.Errorf("io_uring_enter: the ring belongs to another thread (%w)", errno)
		case unix.EBADFD:
			return fmt.Errorf("io_uring_enter: the ring was not yet bound to its thread (%w)", errno)
		default:
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
		r.pending -= uint32(n)
		r.submitted += uint32(n)
		if r.pending == 0 || wait > 0 {
			return nil
		}
	}
}
