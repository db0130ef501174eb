package rank

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

// Where a node runs more of the job's threads than it has CPUs, the
// threads take turns at the CPUs, and how evenly they share them decides
// every stonewalled figure (IOzone's Min xfer, its Children see): the
// first thread to finish stops the others where they are. A rank is a Go
// process: besides its workers it runs the runtime's threads (the monitor,
// threads that wake to look for work, the session's), and those run on
// whatever CPU is free. With the kernel's autogroups (one scheduling group
// per session, and every rank is a session of its own under sshd or the
// local launcher), a group's share of a CPU is cut by the part of its load
// that ran elsewhere, so a worker whose runtime threads had run on the
// other CPU got less of its own than a worker whose had not, and a
// single-threaded C process (IOzone's child) gets all of it. On the 4-node
// test bed (8 one-thread ranks on 2 CPUs, a random read from the page
// cache) a kernel trace showed workers running 9-10 ms unbroken while
// others of the same CPU waited 13 ms, and the slowest reader had done
// 0-1.7 MB when the first had read its 32 MB, in most runs; IOzone's
// children, on the same CPUs, took 4 ms turns and the slowest had done
// 13-32 MB. With autogroups off, ioswarm's slowest did 6-20 MB.
//
// So on such a node each rank holds its whole process, runtime included,
// on the CPUs of its threads' slots (cpuSpread) from setup to the next
// job's setup: the group's load stays where its workers run, and each CPU carries the same
// number of workers at full share. The same line then gave 25-33 MB.
// Where the CPUs are enough for the threads nothing is held past the
// start: the kernel then places the threads, as it does fio's and
// IOzone's.

// procBind is a rank's process held on some of its CPUs for a job.
type procBind struct {
	was unix.CPUSet // the CPUs the process had (held or not); undo gives them back
	on  bool
}

// bindFor holds every thread of the process on the CPUs of slots
// first..first+n-1 (the i-th CPU it may use, round-robin), when the job
// runs more threads than that on this kernel (kernelThreads) and those
// CPUs are not all the rank's anyway. It does nothing where the rank may
// use one CPU only or the kernel refuses; an error says why a thread could
// not be held, for the log.
func bindFor(first, n, kernelThreads int) (procBind, error) {
	var b procBind
	if err := unix.SchedGetaffinity(0, &b.was); err != nil {
		return b, nil
	}
	cpus := b.was.Count()
	if cpus < 2 || kernelThreads <= cpus || n < 1 {
		return b, nil
	}
	var set unix.CPUSet
	for i := 0; i < n; i++ {
		set.Set(nthCPU(&b.was, first+i))
	}
	if set == b.was {
		return b, nil
	}
	b.on = true
	return b, setProcessAffinity(&set)
}

// undo gives every thread of the process back the CPUs it had.
func (b *procBind) undo() error {
	if !b.on {
		return nil
	}
	b.on = false
	return setProcessAffinity(&b.was)
}

// setProcessAffinity puts every thread of the process on set: the
// kernel's affinity is a thread's, and a process's threads are listed
// under /proc/self/task. A thread that has exited meanwhile is skipped;
// one started meanwhile took its creator's set, which was the old or the
// new one.
func setProcessAffinity(set *unix.CPUSet) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("hold the rank on its CPUs: %w", err)
	}
	var first error
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH && first == nil {
			first = fmt.Errorf("hold thread %d of the rank on its CPUs: %w", tid, err)
		}
	}
	return first
}

// nthCPU is the i-th CPU of set, round-robin (set must not be empty).
func nthCPU(set *unix.CPUSet, i int) int {
	want := i % set.Count()
	for cpu := 0; cpu < cpuSetCPUs; cpu++ {
		if !set.IsSet(cpu) {
			continue
		}
		if want == 0 {
			return cpu
		}
		want--
	}
	return 0
}

// bindCPUs holds the process for the job set up by in, or lets go of the
// last job's hold, and returns the warning the node's dropping rank (one
// per kernel) gives where the node runs more of the job's threads than it
// has CPUs. The hold lasts from setup to the next job's, between phases
// too: undone after each phase, the runtime's threads ran on every CPU
// between phases, and the kernel still counted that load against the group
// when the next phase began (the bed's random line was no better than
// without the hold).
func (s *state) bindCPUs(in wire.Setup) string {
	if err := s.bound.undo(); err != nil {
		fmt.Fprintf(s.log, "rank %d: %v\n", in.Rank, err)
	}
	b, err := bindFor(in.CPUSlot, len(in.Threads), in.KernelThreads)
	if err != nil {
		fmt.Fprintf(s.log, "rank %d: %v\n", in.Rank, err)
	}
	s.bound = b
	// b.was is the rank's CPUs whether or not it holds them (none where
	// the kernel would not say).
	if cpus := b.was.Count(); in.DropNode && in.KernelThreads > len(in.Threads) && cpus > 0 && in.KernelThreads > cpus {
		return fmt.Sprintf("%d of the job's threads run on this node's %d CPUs: they take turns at them, so a phase the CPUs limit (one served from the page cache) measures their share of the CPUs; each rank is held on its threads' share of the CPUs so that the threads share them evenly", in.KernelThreads, cpus)
	}
	return ""
}
