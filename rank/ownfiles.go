package rank

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// A rank is one process of many threads, and the kernel charges every
// system call that names a descriptor for that: where the descriptor
// table is shared, looking a descriptor up takes a reference on its file
// and drops it after, and lseek and read, which move the file's offset,
// also take the file's offset lock. A process of one thread (IOzone's
// child, fio's job) skips all three. For 8 threads reading 4 KiB records
// from the page cache with lseek and read (IOzone's -i2) on 2 CPUs this
// cost ioswarm's 8 one-thread ranks more than a loop of 8 single-threaded
// C processes: a profile put the lookup, the lock and the release at 6% of
// the ranks' busy CPU time (under 2% in the C loop), and with a table of its
// own per thread the rate rose by a tenth (docs/benchmarks.md).
//
// So each thread of the sync engine takes a table of its own before its
// phase: a copy of the process's (every descriptor the rank had open,
// the job directory's among them), to which the files it opens are added
// and from which they are closed. Only that thread may use them, which is
// why its goroutine stays locked to the thread for the phase, through its
// yields too, and ends without unlocking: the runtime then ends the
// thread, and the copy with it, so no other goroutine ever runs on a
// thread whose descriptors differ from the process's.

// offMainThread runs f with the calling goroutine locked to a thread that
// is not the process's main thread; f unlocks it or, to end the thread
// with it, does not. The runtime parks the main thread for good when a
// goroutine locked to it ends, instead of ending it, and a table of its
// own would then hold the files in it open until the rank exits. A
// goroutine finds itself there often (an idle main thread takes the next
// goroutine): it then keeps the main thread while a new goroutine, which
// cannot run on it, runs f.
func offMainThread(f func()) {
	runtime.LockOSThread()
	if unix.Gettid() != unix.Getpid() {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		f()
	}()
	<-done
	runtime.UnlockOSThread()
}

// ownDescriptors gives the calling thread, which must be locked to its
// goroutine for good, a descriptor table of its own, and says whether it
// did. Not on the process's main thread (see offMainThread), nor where the
// kernel refuses: the thread then shares the process's table, as before.
func ownDescriptors() bool {
	if unix.Gettid() == unix.Getpid() {
		return false
	}
	return unix.Unshare(unix.CLONE_FILES) == nil
}
