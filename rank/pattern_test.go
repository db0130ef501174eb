package rank

import (
	"bytes"
	"compress/flate"
	"strings"
	"testing"
)

func TestPatternRoundTripAndDetectsCorruption(t *testing.T) {
	p := newPattern(42, 3)
	buf := make([]byte, 8192)
	p.fill(buf, 1<<20)
	if err := p.check(buf, 1<<20); err != nil {
		t.Fatalf("fresh pattern fails its own check: %v", err)
	}
	if err := p.check(buf, 1<<20+512); err == nil || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("check at the wrong offset passed: %v", err)
	}
	q := newPattern(42, 4)
	if err := q.check(buf, 1<<20); err == nil {
		t.Fatal("another thread's data passed the check")
	}
	buf[5000] ^= 1
	err := p.check(buf, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "offset 1053184") {
		t.Fatalf("flipped byte in unit at 1048576+4608: got %v", err)
	}
}

func TestPatternIsNotCompressibleOrZero(t *testing.T) {
	p := newPattern(7, 0)
	buf := make([]byte, 1<<20)
	p.fill(buf, 0)
	if bytes.Count(buf, []byte{0}) > len(buf)/20 {
		t.Fatal("more than 5% zero bytes")
	}
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(buf)
	w.Close()
	// A 1 MiB buffer repeats its 64 KiB base 16 times, so a compressor
	// with a 32 KiB window still cannot find the repeats.
	if out.Len() < len(buf)*95/100 {
		t.Fatalf("pattern compresses to %d of %d bytes", out.Len(), len(buf))
	}
}

func TestStampOnlyRefillMatchesFullFill(t *testing.T) {
	p := newPattern(9, 1)
	a := make([]byte, 2*patternPeriod)
	b := make([]byte, 2*patternPeriod)
	p.fill(a, 0)
	copy(b, a)
	p.stamp(b, 6*patternPeriod) // body stable: stamps alone move it
	p.fill(a, 6*patternPeriod)
	if !bytes.Equal(a, b) {
		t.Fatal("stamp-only refill differs from a full fill")
	}
	if !bodyStable(16<<20) || bodyStable(4096) {
		t.Fatal("bodyStable wrong")
	}
}

// A block's window in a period filled at offset 0, stamped for the
// block's offset, holds exactly what a full fill at that offset writes,
// for every block size bodyWindows accepts and offsets across periods.
func TestWindowStampMatchesFullFill(t *testing.T) {
	p := newPattern(11, 3)
	period := make([]byte, patternPeriod)
	p.fill(period, 0)
	for _, block := range []int64{512, 4096, 8192, 32 << 10} {
		if !bodyWindows(block) {
			t.Fatalf("bodyWindows(%d) = false", block)
		}
		want := make([]byte, block)
		for _, off := range []int64{0, block, patternPeriod - block, 7*patternPeriod + 3*block, 1<<30 + 5*block} {
			at := off % patternPeriod
			win := period[at : at+block]
			p.stamp(win, off)
			p.fill(want, off)
			if !bytes.Equal(win, want) {
				t.Fatalf("block %d at offset %d: the stamped window differs from a full fill", block, off)
			}
		}
	}
	for _, block := range []int64{patternPeriod, 16 << 20, 12 << 10, 3000} {
		if bodyWindows(block) {
			t.Errorf("bodyWindows(%d) = true", block)
		}
	}
}
