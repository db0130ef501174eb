package rank

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/wire"
)

// Thread i waits on the (i mod n)-th CPU it may use, alone, and gets its
// whole set back at release; where it may use one CPU only, nothing
// changes.
func TestCPUSpreadHoldsThreadIOnTheIthCPUAndGivesAllBack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	all := threadCPUs(t)
	cpus := cpuList(&all)
	for i := 0; i < 2*len(cpus)+1; i++ {
		var s cpuSpread
		s.hold(i)
		var got unix.CPUSet
		if err := unix.SchedGetaffinity(0, &got); err != nil {
			t.Fatal(err)
		}
		if len(cpus) < 2 {
			if got != all || s.held {
				t.Fatalf("thread %d on a one-CPU set: held=%v, set changed to %v", i, s.held, got)
			}
			continue
		}
		want := cpus[i%len(cpus)]
		if got.Count() != 1 || !got.IsSet(want) {
			t.Errorf("thread %d held on %d CPU(s), want CPU %d alone", i, got.Count(), want)
		}
		if cpu := currentCPU(); cpu != want {
			t.Errorf("thread %d runs on CPU %d while held on %d", i, cpu, want)
		}
		s.release()
		if err := unix.SchedGetaffinity(0, &got); err != nil {
			t.Fatal(err)
		}
		if got != all {
			t.Fatalf("thread %d after release: %d CPU(s), want its %d back", i, got.Count(), all.Count())
		}
		s.release() // a second release (the deferred one) changes nothing
	}
}

// currentCPU is the CPU the calling thread runs on (getcpu(2)).
func currentCPU() int {
	var cpu, node uint32
	_, _, _ = unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	return int(cpu)
}

// A rank holds its i-th thread on the (CPUSlot+i)-th CPU while it waits
// for the release: ranks of one thread each on one node (an IOzone
// threadlist's lines) wait on different CPUs, not all on the first.
func TestRunWorkersHoldsThreadsFromTheRanksCPUSlot(t *testing.T) {
	all := threadCPUs(t)
	cpus := cpuList(&all)
	if len(cpus) < 2 {
		t.Skip("one CPU: there is nothing to spread over")
	}
	for _, slot := range []int{0, 1, len(cpus) + 1} {
		s := &state{setup: wire.Setup{CPUSlot: slot}, workers: []*worker{testWorker(t, 4096)}}
		p := testParams("write", 4096)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.runWorkers(context.Background(), p, [][]byte{nil}, clock.Now()+int64(time.Hour))
		}()
		held := heldCPUs(t, 10*time.Second)
		p.stop.Store(true)
		<-done
		want := cpus[slot%len(cpus)]
		if len(held) != 1 || held[0] != want {
			t.Errorf("CPU slot %d: threads held on CPUs %v, want one on CPU %d", slot, held, want)
		}
	}
}

// heldCPUs waits (up to limit) for a thread of this process to be held on
// a single CPU and returns the CPUs of all such threads.
func heldCPUs(t *testing.T, limit time.Duration) []int {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(time.Millisecond) {
		var held []int
		for _, set := range taskCPUSets(t) {
			if set.Count() == 1 {
				held = append(held, cpuList(&set)...)
			}
		}
		if len(held) > 0 {
			return held
		}
	}
	t.Fatalf("no thread was held on one CPU within %v", limit)
	return nil
}

// Where the kernel runs more of the job's threads than the rank has CPUs,
// setup holds every thread of the process on the CPUs of the rank's slots
// until the next job's setup, and the node's dropping rank says so once;
// where it does not, or the rank's slots take all its CPUs anyway, nothing
// is held and nothing said.
func TestBindCPUsHoldsTheProcessOnItsSlotsWhereThreadsOutnumberCPUs(t *testing.T) {
	all := threadCPUs(t)
	n := all.Count()
	if n < 2 {
		t.Skip("one CPU: there is nothing to hold the process to")
	}
	s := &state{log: io.Discard}
	defer s.bindCPUs(wire.Setup{}) // gives the test process its CPUs back

	warn := s.bindCPUs(wire.Setup{Threads: []int{1}, CPUSlot: 1, KernelThreads: n + 1, DropNode: true})
	want := nthCPU(&all, 1)
	if got := processCPUs(t); len(got) != 1 || !got[want] {
		t.Errorf("one thread at slot 1 of %d on %d CPUs: process on CPUs %v, want CPU %d alone", n+1, n, got, want)
	}
	if !strings.Contains(warn, fmt.Sprintf("%d of the job's threads run on this node's %d CPUs", n+1, n)) {
		t.Errorf("the dropping rank's warning: %q", warn)
	}
	if w := s.bindCPUs(wire.Setup{Threads: []int{1}, CPUSlot: 1, KernelThreads: n + 1}); w != "" {
		t.Errorf("a rank that does not drop the node's cache warned too: %q", w)
	}

	for _, in := range []wire.Setup{
		{Threads: []int{0}, CPUSlot: 1, KernelThreads: n, DropNode: true}, // as many threads as CPUs
		{Threads: make([]int, n), KernelThreads: n + 1, DropNode: true},   // the rank's slots are all its CPUs
	} {
		w := s.bindCPUs(in)
		if got := processCPUs(t); len(got) != n {
			t.Errorf("%d threads here, %d on the kernel, %d CPUs: process on CPUs %v, want all", len(in.Threads), in.KernelThreads, n, got)
		}
		if (w != "") != (in.KernelThreads > n) {
			t.Errorf("%d threads here, %d on the kernel, %d CPUs: warning %q", len(in.Threads), in.KernelThreads, n, w)
		}
	}
}

// processCPUs is the union of the CPUs every thread of this process may
// run on.
func processCPUs(t *testing.T) map[int]bool {
	t.Helper()
	cpus := map[int]bool{}
	for _, set := range taskCPUSets(t) {
		for _, cpu := range cpuList(&set) {
			cpus[cpu] = true
		}
	}
	return cpus
}

// taskCPUSets is the CPU set of every thread of this process (a thread
// that exits while it is read is left out).
func taskCPUSets(t *testing.T) []unix.CPUSet {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc/self/task: %v", err)
	}
	var sets []unix.CPUSet
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) == nil {
			sets = append(sets, set)
		}
	}
	return sets
}

// threadCPUs is the calling thread's CPU set; the test skips without one.
func threadCPUs(t *testing.T) unix.CPUSet {
	t.Helper()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Skipf("sched_getaffinity: %v", err)
	}
	return all
}

// cpuList is the CPUs of set in order.
func cpuList(set *unix.CPUSet) []int {
	var cpus []int
	for cpu := 0; cpu < cpuSetCPUs; cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	return cpus
}
