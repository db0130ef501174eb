package rank

import "golang.org/x/sys/unix"

// Where a rank's threads stand when their loops begin decides how evenly
// they share the node's CPUs while threads outnumber them: a thread that
// only copies to or from the page cache never sleeps, and the kernel left
// such threads where they began for the whole of a 15-30 ms phase. They
// began badly, likely because the workers are woken for a phase by one
// thread (the runtime's hand-off to each locked thread) and the kernel
// puts a wakee beside its waker. The CPU each of 8 threads was on after
// the start gate, 3 runs of a random read on 2 cores, one rank: 7 on one
// and 1 on the other, 6 and 2, 2 and 6; the lone thread ran 2-3x the
// others' rate, and under IOzone's stonewall the others had done little
// when it finished. (IOzone's children poll for their start in short
// sleeps and are placed anew at every wake-up.)
//
// So each thread waits for the release on a CPU of its own share: the
// rank's thread i on the (CPUSlot+i)-th CPU the rank may use, where
// CPUSlot (wire.Setup) counts the threads of the ranks before it on the
// same kernel, and lets go of it just before its start, when it may run
// anywhere again. The kernel moves no thread off a CPU it is allowed on,
// so the loops begin spread as evenly as the CPUs allow, and from there
// the kernel balances as it would. On that line the slowest reader's
// share of the fastest's rose from 0.12-0.25 to 0.27-0.55.
//
// The slot is the node's, not the rank's: counted from 0 in every rank,
// the ranks of one thread that an IOzone threadlist makes (one per line,
// several lines to a node) all waited on the node's first CPU, started
// there, and the other CPUs stayed idle for milliseconds (a kernel trace
// of the 4-node test bed: all 8 waiting threads on CPU 0, CPU 1 idle). With
// the node's slots, the release of the bed's write phase came within
// 0.2-0.5 ms for all 8 threads in 4 of 4 runs (0.4-12 ms before). Where
// threads outnumber the CPUs, threads started together still take the
// CPUs in turns of a scheduler tick (4 ms on the bed's kernel), which
// decides a phase of a few ticks (docs/benchmarks.md).

// cpuSetCPUs is how many CPUs a unix.CPUSet can name (0 to 1023); on a
// machine with more the kernel refuses the set, and hold does nothing.
const cpuSetCPUs = 1024

// cpuSpread holds a thread on one CPU while it waits for a phase's start.
type cpuSpread struct {
	was  unix.CPUSet // the thread's CPUs before; restored by release
	held bool
}

// hold moves the calling thread (which must be locked to its goroutine)
// onto the i-th CPU, round-robin, of those it may run on. It does nothing
// where it may run on one CPU only, or when the kernel refuses.
func (c *cpuSpread) hold(i int) {
	if c.held || unix.SchedGetaffinity(0, &c.was) != nil {
		return
	}
	n := c.was.Count()
	if n < 2 {
		return
	}
	var one unix.CPUSet
	one.Set(nthCPU(&c.was, i))
	c.held = unix.SchedSetaffinity(0, &one) == nil
}

// release gives the thread back every CPU it could run on before hold.
// The kernel leaves a running thread where it is when its new set still
// holds its CPU, so the spread stands until the kernel's own balancing
// moves a thread.
func (c *cpuSpread) release() {
	if !c.held {
		return
	}
	c.held = false
	_ = unix.SchedSetaffinity(0, &c.was)
}
