package rank

import (
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Thread i waits on the (i mod n)-th CPU it may use, alone, and gets its
// whole set back at release; where it may use one CPU only, nothing
// changes.
func TestCPUSpreadHoldsThreadIOnTheIthCPUAndGivesAllBack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Skipf("sched_getaffinity: %v", err)
	}
	var cpus []int
	for cpu := 0; cpu < cpuSetCPUs; cpu++ {
		if all.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
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
