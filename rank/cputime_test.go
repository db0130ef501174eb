package rank

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"ioswarm/clock"
	"ioswarm/histogram"
	"ioswarm/wire"
)

// spinFor burns the calling thread's CPU until its own clock has advanced
// by d, and returns how much it advanced.
func spinFor(t *testing.T, d int64) int64 {
	t.Helper()
	from := threadCPU()
	if from < 0 {
		t.Fatal("the thread's CPU clock cannot be read")
	}
	for threadCPU()-from < d {
	}
	return threadCPU() - from
}

// A thread that spins and one that sleeps, metered at the same time in one
// process: the spinner's CPU time holds every nanosecond it spun, also
// across yields where its goroutine let its thread go; the sleeper's is
// next to nothing, though the process burned the spinner's CPU meanwhile.
// A meter that read the process's CPU (RUSAGE_SELF), the wall time, or one
// thread's clock before a yield and another's after, would fail one side.
func TestCPUMeterSpinnerAgainstSleeper(t *testing.T) {
	const segment, segments = int64(5 * time.Millisecond), 8
	var spinner, sleeper wire.ThreadRecord
	var spun int64
	// The sleeper's meter starts before the spinner spins and stops after
	// it is done, so its wall time holds every spin whatever the order in
	// which the goroutines get a thread.
	sleeping, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		<-sleeping
		var m cpuMeter
		m.begin(true, clock.Now())
		for range segments {
			spun += spinFor(t, segment)
			m.pause()
			yield(true) // the goroutine may come back on another thread
			m.resume()
		}
		m.end(&spinner)
	}()
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var m cpuMeter
		m.begin(true, clock.Now())
		close(sleeping)
		<-done
		m.end(&sleeper)
	}()
	wg.Wait()
	if spinner.CPUNS < spun {
		t.Errorf("spinner: %d ns of CPU metered, it spun %d ns", spinner.CPUNS, spun)
	}
	if spinner.CPUNS > spinner.CPUWallNS {
		t.Errorf("spinner: %d ns of CPU in %d ns of wall time: one thread cannot use more", spinner.CPUNS, spinner.CPUWallNS)
	}
	if limit := int64(5 * time.Millisecond); sleeper.CPUNS > limit {
		t.Errorf("sleeper: %d ns of CPU metered while it waited (the spinner spun %d ns); want under %d", sleeper.CPUNS, spun, limit)
	}
	if sleeper.CPUWallNS < spun {
		t.Errorf("sleeper: wall time %d ns, shorter than the %d ns of CPU the spinner used meanwhile", sleeper.CPUWallNS, spun)
	}
}

// A worker that is not locked to its thread is not metered: its readings
// could come from two threads.
func TestCPUMeterOffWhenUnlocked(t *testing.T) {
	var m cpuMeter
	m.begin(false, clock.Now())
	spinFor(t, int64(time.Millisecond))
	var rec wire.ThreadRecord
	m.end(&rec)
	if rec.CPUNS != 0 || rec.CPUWallNS != 0 {
		t.Fatalf("unlocked worker metered: cpu %d ns, wall %d ns", rec.CPUNS, rec.CPUWallNS)
	}
}

// In a real write phase under the first-done stop, a stopped writer's
// CPU interval runs from its start to the end of the untimed rest of its
// file, as IOzone's child takes its CPU time after finishing its file; its
// CPU time fits in that wall time.
func TestCPUMeterSpansTheStoppedWritersUntimedRest(t *testing.T) {
	const block, n = 4096, 64
	p := firstStopParams("write", block)
	p.locked = true
	first := testWorker(t, n*block)
	next := newWorker(1, filepath.Join(t.TempDir(), "t1.dat"), n*block, newPattern(1, 1))
	bufs := [][]byte{testBuffer(t, first, block), testBuffer(t, next, block)}
	errs := make(chan error, 2)
	go func() {
		// As runWorkers runs a worker: locked to its OS thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i, w := range []*worker{first, next} {
			w.hist = histogram.New()
			errs <- w.run(p, bufs[i])
		}
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []*worker{first, next} {
		r := w.rec
		end := max(r.EndNS, r.UntimedEndNS)
		if r.CPUNS <= 0 || r.CPUNS > r.CPUWallNS {
			t.Errorf("thread %d: %d ns of CPU in %d ns of wall time", r.Thread, r.CPUNS, r.CPUWallNS)
		}
		if r.CPUWallNS < end-r.StartNS {
			t.Errorf("thread %d: CPU wall time %d ns ends before its work did (%d ns after its start)", r.Thread, r.CPUWallNS, end-r.StartNS)
		}
	}
	if next.rec.UntimedEndNS == 0 {
		t.Fatalf("the second writer was not stopped: record %+v", next.rec)
	}
}
