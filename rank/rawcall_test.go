package rank

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/settings"
	"ioswarm/wire"
)

// gcSettings reads the collector's percent and memory limit without
// changing them.
func gcSettings() (percent int64, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), s[1].Value.Uint64()
}

// From a phase's arming to its end the collector is off (its timed calls
// are raw: a stop of the world would wait for the slowest in flight), with
// a memory limit as the backstop; allocating well past the usual trigger
// starts no collection; the run, and a preparation never run, give the
// settings back.
func TestArmedPhaseHoldsTheCollectorOff(t *testing.T) {
	percent, limit := gcSettings()
	s, req := testState(t, 0, 1)
	req(wire.KindPrepare, wire.Prepare{Phase: "write"})
	p, l := gcSettings()
	if p > 0 || l >= limit { // an off collector reads as 0 or -1 by version
		t.Fatalf("armed: GOGC %d, memory limit %d; want the collector off under a limit below %d", p, l, limit)
	}
	// The limit is a backstop only: what a phase keeps live (a random
	// phase's latency per second, tens of KiB a second; before
	// latencyStore, 58 KiB a thread and second, 0.5 GiB for 32 threads over
	// 5 minutes) must fit far under it, or the collector would run again
	// and again against it.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if room := int64(l) - int64(ms.Sys-ms.HeapReleased); room < 512<<20 {
		t.Errorf("armed: the limit leaves %d MiB of room, want 512 MiB at least", room>>20)
	}
	before := ms.NumGC
	var keep [][]byte
	for range 64 {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB, 16 times the smallest trigger
	}
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	if ms.NumGC != before {
		t.Errorf("%d collections while the phase was armed", ms.NumGC-before)
	}
	runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: 1, ReleaseAt: clock.Now()}))
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after the run: GOGC %d, limit %d; want %d, %d back", p, l, percent, limit)
	}
	req(wire.KindPrepare, wire.Prepare{Phase: "read"})
	s.disarm()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after a preparation not run: GOGC %d, limit %d; want %d, %d back", p, l, percent, limit)
	}
}

// --rand-call lseek reaches each offset as IOzone's random tests do, with
// lseek and then read or write, which move the file's position; pread
// leaves it alone. Both put and find the bytes at the offset.
func TestRandCallsReachTheOffsetTheirWay(t *testing.T) {
	for _, c := range []settings.RandCall{settings.CallPread, settings.CallLseek} {
		t.Run(string(c), func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "f"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fd := int(f.Fd())
			pwrite, pread := randCalls(c)
			block := bytes.Repeat([]byte{0xa5}, 4096)
			if err := writeAll(pwrite, fd, block, 3*4096); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 4096)
			if err := readAll(pread, fd, got, 3*4096); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, block) {
				t.Fatalf("read back other bytes than written at offset %d", 3*4096)
			}
			if err := readAll(pread, fd, got[:100], 4096); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[:100], make([]byte, 100)) {
				t.Fatal("the hole before the written block read as data")
			}
			pos, err := unix.Seek(fd, 0, io.SeekCurrent)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0) // pread and pwrite leave the position
			if c == settings.CallLseek {
				want = 4096 + 100 // after the last read
			}
			if pos != want {
				t.Fatalf("file position %d after the calls, want %d", pos, want)
			}
		})
	}
}
