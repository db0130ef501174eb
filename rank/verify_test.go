package rank

import (
	"fmt"
	"strings"
	"testing"
)

// The read loops find a corrupted block and name the file and the offset
// of the 512-byte unit that holds the bad byte; the coordinator adds the
// host and rank when it reports the rank's error.
func TestVerifySequentialReadNamesFileAndOffset(t *testing.T) {
	const block = 64 << 10
	w := testWorker(t, 8*block)
	runPhaseOn(t, w, testParams("write", block))
	p := testParams("read", block)
	p.verify = true
	runPhaseOn(t, w, p) // clean data passes

	bad := int64(3*block + 700)
	corruptByte(t, w.path, bad)
	err := w.run(p, testBuffer(t, w, block))
	want := fmt.Sprintf("data mismatch at offset %d:", bad/unitSize*unitSize)
	if err == nil || !strings.Contains(err.Error(), w.path) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error naming %s and %q", err, w.path, want)
	}
	p.verify = false
	runPhaseOn(t, w, p) // without --verify nothing is checked
}

func TestVerifyRandomReadNamesFileAndOffset(t *testing.T) {
	const block = 4096
	w := testWorker(t, 64*block)
	runPhaseOn(t, w, testParams("write", block))
	p := testParams("randread", block)
	p.verify = true
	runPhaseOn(t, w, p)

	// Corrupt the block the phase reads first, found from the same stream.
	g := newOffsetGen(p.seed, w.thread, w.size, block)
	first := g.next()
	corruptByte(t, w.path, first+100)
	err := w.run(p, testBuffer(t, w, block))
	want := fmt.Sprintf("data mismatch at offset %d:", first)
	if err == nil || !strings.Contains(err.Error(), w.path) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error naming %s and %q", err, w.path, want)
	}
}

// Random writes keep the file verifiable: each op writes the pattern of
// its own offset.
func TestRandomWritesKeepPattern(t *testing.T) {
	const block = 4096
	w := testWorker(t, 64*block)
	runPhaseOn(t, w, testParams("write", block))
	for seed := uint64(1); seed <= 3; seed++ {
		p := testParams("randwrite", block)
		p.seed = seed
		runPhaseOn(t, w, p)
	}
	checkWholeFile(t, w)
}
