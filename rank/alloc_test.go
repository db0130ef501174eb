package rank

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The timed loops allocate nothing: a garbage collection inside the
// window would be charged to the filesystem, and at 4 KiB a single
// allocation per op is measurable. Each loop runs over a whole small file
// with everything it is given (descriptor, buffer, params, generator)
// made outside the measurement, as the phases make them before release.
func TestTimedLoopsDoNotAllocate(t *testing.T) {
	for _, block := range []int64{4096, 64 << 10} {
		w := testWorker(t, 32*block)
		runPhaseOn(t, w, testParams("write", block))
		buf := testBuffer(t, w, block)
		fd, err := unix.Open(w.path, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		ops := w.size / block
		write, read := testParams("write", block), testParams("read", block)
		rw, rr := testParams("randwrite", block), testParams("randread", block)
		read.verify, rr.verify = true, true
		gen := newOffsetGen(1, 0, w.size, block)
		var errs [4]error
		loops := map[string]func(){
			"write":     func() { _, errs[0] = w.writeRecords(write, fd, buf, 0, true) },
			"read":      func() { _, errs[1] = w.readRecords(read, fd, buf, w.src) },
			"randwrite": func() { _, errs[2] = w.randomOps(rw, fd, buf, &gen, ops, w.src) },
			"randread":  func() { _, errs[3] = w.randomOps(rr, fd, buf, &gen, ops, w.src) },
		}
		if bodyWindows(block) {
			period := testBuffer(t, w, patternPeriod)
			loops["randwrite windows"] = func() { _, errs[2] = w.randomOps(rw, fd, period, &gen, ops, w.src) }
		}
		for name, loop := range loops {
			n := testing.AllocsPerRun(5, func() {
				w.log.reset(ops, defaultLogEntries) // as each phase does, before its loop
				loop()
			})
			if n != 0 {
				t.Errorf("block %d: %s loop allocates %.1f times per run", block, name, n)
			}
		}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("block %d: loop %d: %v", block, i, err)
			}
		}
	}
}
