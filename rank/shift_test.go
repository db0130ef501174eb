package rank

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/wire"
)

// A worker told to read another thread's file reads and verifies that
// file, with that thread's pattern, in both read phases; its writing
// phases still use its own file.
func TestRotatedReadReadsTheWritersFile(t *testing.T) {
	const block = 64 << 10
	writer := testWorker(t, 16*block)
	writer.thread, writer.pat = 5, newPattern(1, 5)
	writer.src = source{thread: 5, path: writer.path, pat: writer.pat}
	runPhaseOn(t, writer, testParams("write", block))

	reader := testWorker(t, 16*block)
	runPhaseOn(t, reader, testParams("write", block))
	reader.readFrom(5, writer.path, newPattern(1, 5))
	for _, name := range []string{"read", "randread"} {
		p := testParams(wire.Phase(name), block)
		p.verify = true
		runPhaseOn(t, reader, p)
		if reader.rec.File != writer.path || reader.rec.Bytes != 16*block {
			t.Errorf("%s: record says file %s, %d bytes; want %s, %d", name, reader.rec.File, reader.rec.Bytes, writer.path, 16*block)
		}
	}
	runPhaseOn(t, reader, testParams("randwrite", block))
	if reader.rec.File != reader.path {
		t.Errorf("randwrite wrote %s, want its own %s", reader.rec.File, reader.path)
	}
	// The check has teeth: verifying the writer's file with the reader's
	// own pattern fails.
	reader.readFrom(5, writer.path, reader.pat)
	p := testParams("read", block)
	p.verify = true
	if err := reader.run(p, testBuffer(t, reader, block)); err == nil || !strings.Contains(err.Error(), "verify") {
		t.Errorf("read with the wrong pattern: %v, want a verify error", err)
	}
}

func TestRotatedReadOfAMissingFileNamesTheWriter(t *testing.T) {
	reader := testWorker(t, 4096)
	missing := filepath.Join(t.TempDir(), "t3.dat")
	reader.readFrom(3, missing, newPattern(1, 3))
	err := reader.run(testParams("read", 4096), testBuffer(t, reader, 4096))
	if err == nil || !strings.Contains(err.Error(), "written by thread 3") || !strings.Contains(err.Error(), "same --dir") {
		t.Errorf("missing rotated file: %v", err)
	}
}

// The series counts each thread's timed operations by each boundary,
// and all of them once the thread has ended.
func TestSeriesCountsTimedOperations(t *testing.T) {
	w := testWorker(t, 16*4096)
	runPhaseOn(t, w, testParams("write", 4096))
	s := &state{workers: []*worker{w, w}}
	start, end := w.rec.StartNS, w.rec.EndNS
	step := (end - start) / 4
	got := s.series(wire.Series{Start: start, Step: step, N: 5}).Ops
	if len(got) != 5 || got[4] != 2*w.rec.Ops {
		t.Fatalf("series %v, want it to end at %d", got, 2*w.rec.Ops)
	}
	for k := 1; k < len(got); k++ {
		if got[k] < got[k-1] {
			t.Errorf("series %v is not cumulative", got)
		}
	}
	if n := len(s.series(wire.Series{Start: start, Step: 1, N: 1 << 30}).Ops); n != maxSeries {
		t.Errorf("a huge request gave %d boundaries, want the cap %d", n, maxSeries)
	}
}

// A random phase keeps one latency histogram per second from the
// release, every timed operation in one of them.
func TestRandomPhaseKeepsLatencyIntervals(t *testing.T) {
	w := testWorker(t, 64*4096)
	runPhaseOn(t, w, testParams("write", 4096))
	s := &state{workers: []*worker{w}}
	p := testParams("randread", 4096)
	p.latency, p.intervalStart = &s.latency, 0 // the release long ago: every op in one late interval
	runPhaseOn(t, w, p)
	iv := s.intervalReply()
	var n int64
	for _, h := range iv {
		for _, c := range h.Counts {
			n += c
		}
	}
	if n != w.rec.Ops || len(iv) == 0 {
		t.Errorf("%d intervals hold %d operations, the phase did %d", len(iv), n, w.rec.Ops)
	}
	s.latency.reset()
	w.interval.reset()
	p.intervalStart = w.rec.StartNS + int64(time.Hour) // the release after every op: interval 0
	runPhaseOn(t, w, p)
	if iv := s.intervalReply(); len(iv) != 1 {
		t.Errorf("operations before the release fall in %d intervals, want the first", len(iv))
	}
}
