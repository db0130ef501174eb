package rank

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"ioswarm/wire"
	"math/rand/v2"
)

// The data pattern. Every 512-byte unit of a thread's file holds a 16-byte
// stamp (file offset, thread, job seed) followed by pseudo-random bytes taken
// from a per-thread base at the unit's offset modulo patternPeriod. So data
// is incompressible, differs between units, threads and jobs (a deduplicating
// filesystem gains nothing), and any block can be checked on read without a
// copy of what was written.
const (
	unitSize      = 512
	stampSize     = 16
	patternPeriod = 64 << 10
)

type pattern struct {
	thread uint32
	seed   uint32
	base   []byte // patternPeriod bytes
}

func newPattern(jobSeed uint64, thread int) *pattern {
	r := rand.New(rand.NewPCG(jobSeed, uint64(thread)+1))
	base := make([]byte, patternPeriod)
	for i := 0; i < len(base); i += 8 {
		binary.LittleEndian.PutUint64(base[i:], r.Uint64())
	}
	return &pattern{thread: uint32(thread), seed: uint32(jobSeed ^ jobSeed>>32), base: base}
}

// fillBody writes the random body of every unit of buf as placed at file
// offset off. Stamps are left for stamp. When a buffer's length is a
// multiple of patternPeriod its bodies are the same at every aligned offset,
// so the writer calls fillBody once and only stamp per record.
func (p *pattern) fillBody(buf []byte, off int64) {
	for i := 0; i < len(buf); i += unitSize {
		b := (off + int64(i)) % patternPeriod
		copy(buf[i+stampSize:i+unitSize], p.base[b+stampSize:b+unitSize])
	}
}

// stamp writes the stamps of every unit of buf placed at file offset off.
func (p *pattern) stamp(buf []byte, off int64) { p.stampAs(buf, off, p.thread) }

// stampAs stamps buf as thread's data at off. In a shared file every
// thread's pattern has the same bodies (sharedPatterns), so a writer can
// put down the data of whichever thread owns an offset (--rand-scope file)
// and the file stays verifiable.
func (p *pattern) stampAs(buf []byte, off int64, thread uint32) {
	for i := 0; i < len(buf); i += unitSize {
		u := buf[i : i+stampSize]
		binary.LittleEndian.PutUint64(u, uint64(off+int64(i)))
		binary.LittleEndian.PutUint32(u[8:], thread)
		binary.LittleEndian.PutUint32(u[12:], p.seed)
	}
}

// sharedPatterns are the patterns of threads 0..n-1 in one shared file:
// one body for all (from a stream no per-thread pattern uses), each
// thread's own stamp. What a unit holds is then a function of its file
// offset and owner alone, and n threads cost one body's memory.
func sharedPatterns(jobSeed uint64, n int) []*pattern {
	body := newPattern(jobSeed, -1)
	out := make([]*pattern, n)
	for t := range out {
		out[t] = &pattern{thread: uint32(t), seed: body.seed, base: body.base}
	}
	return out
}

// fill writes the whole pattern for buf at off.
func (p *pattern) fill(buf []byte, off int64) { p.fillAs(buf, off, p.thread) }

// fillAs writes the whole pattern for buf at off as thread's data.
func (p *pattern) fillAs(buf []byte, off int64, thread uint32) {
	p.fillBody(buf, off)
	p.stampAs(buf, off, thread)
}

// bodyStable says whether a buffer of n bytes has the same bodies at every
// offset that is a multiple of n.
func bodyStable(n int64) bool { return n%patternPeriod == 0 }

// bodyWindows says whether every n-byte block at a multiple of n has its
// bodies laid out, ready, in one patternPeriod-long buffer filled at
// offset 0: the block at off is the window starting at off%patternPeriod.
// A random writer of such blocks then only stamps, where it would copy the
// whole body for every operation (4 KiB at a time, that copy was 4% of the
// CPU of a 16-thread random write).
func bodyWindows(n int64) bool { return n < patternPeriod && patternPeriod%n == 0 }

// bufferSize is the size of each buffer phase p's operations use (a
// worker's own, and each slot of its ring): one operation's block, or for
// a random write of blocks that fit bodyWindows, the patternPeriod that
// holds every block's body.
func (p *phaseParams) bufferSize() int64 {
	if p.name == wire.RandWrite && bodyWindows(p.block) {
		return patternPeriod
	}
	return p.block
}

// check verifies buf as read from file offset off and returns an error naming
// the first bad unit's offset.
func (p *pattern) check(buf []byte, off int64) error { return p.checkAs(buf, off, p.thread) }

// checkAs verifies buf at off as thread's data.
func (p *pattern) checkAs(buf []byte, off int64, thread uint32) error {
	for i := 0; i < len(buf); i += unitSize {
		u := buf[i : i+unitSize]
		at := off + int64(i)
		if binary.LittleEndian.Uint64(u) != uint64(at) ||
			binary.LittleEndian.Uint32(u[8:]) != thread ||
			binary.LittleEndian.Uint32(u[12:]) != p.seed {
			return fmt.Errorf("data mismatch at offset %d: stamp says offset %d thread %d, want thread %d's",
				at, binary.LittleEndian.Uint64(u), binary.LittleEndian.Uint32(u[8:]), thread)
		}
		b := at % patternPeriod
		if !bytes.Equal(u[stampSize:], p.base[b+stampSize:b+unitSize]) {
			return fmt.Errorf("data mismatch at offset %d: stamp right, contents differ", at)
		}
	}
	return nil
}
