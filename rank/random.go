package rank

import (
	"fmt"
	"math/rand/v2"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/settings"
	"ioswarm/wire"
)

// offsetGen draws block-aligned offsets over a file: uniformly, with
// replacement (fio's norandommap, --rand-order uniform), where some blocks
// are hit twice and some not at all; or, once order is set (shuffled), each
// block once per pass in a random order (--rand-order shuffle, IOzone's
// -i2). Neither keeps a per-file map of done blocks. Each thread and phase
// iteration has its own stream, so runs are reproducible and threads do
// not walk the same sequence.
type offsetGen struct {
	rng     *rand.Rand
	nblocks uint64
	block   int64
	m       fileMap  // where the drawn logical offsets lie in the file
	order   *shuffle // nil: uniform draws
}

func newOffsetGen(seed uint64, thread int, size, block int64) offsetGen {
	return offsetGen{
		rng:     rand.New(rand.NewPCG(seed, uint64(thread))),
		nblocks: uint64(size / block),
		block:   block,
	}
}

// shuffled makes g visit every block once per pass (see shuffle), keyed
// from g's own stream so it stays per thread and iteration.
func (g *offsetGen) shuffled() {
	g.order = newShuffle(g.nblocks, g.rng.Uint64())
}

// next returns the next offset. Uint64N is unbiased for any bound, so a
// block count that is not a power of two skews nothing.
func (g *offsetGen) next() int64 {
	if g.order != nil {
		return g.m.at(int64(g.order.next()) * g.block)
	}
	return g.m.at(int64(g.rng.Uint64N(g.nblocks)) * g.block)
}

// randomMap is where a random phase of a worker reading or writing src
// draws its offsets: src's part of the file, or with --rand-scope file
// the whole shared file.
func randomMap(src source, scope settings.RandScope) fileMap {
	if src.m.shared() && scope == settings.ScopeFile {
		return src.m.wholeFile()
	}
	return src.m
}

// random is a randwrite or randread phase: one operation per rand block of
// the thread's file (so the op count follows the thread's share of
// --total), at offsets from offsetGen, on a file prefilled beforehand.
func (w *worker) random(p *phaseParams, buf []byte) error {
	block := p.block
	total := w.size / block
	src := w.readSource(p)
	m := randomMap(src, p.randScope)
	span := w.size // the thread's own part
	if m.whole {
		span = m.span()
	}
	gen := newOffsetGen(p.seed, w.thread, span, block)
	gen.m = m
	if p.randOrder != settings.Uniform {
		gen.shuffled()
	}
	w.log.reset(total, defaultLogEntries)
	mode := unix.O_RDONLY
	if p.name == wire.RandWrite {
		mode = unix.O_WRONLY
	}
	w.rec.File = src.path
	fd, err := w.openTimed(p, src.path, w.openFlags(p, mode), 0)
	if err != nil {
		return w.openError(src, err)
	}
	ops, err := w.randomOps(p, fd, buf, &gen, total, src)
	if err := w.closeFile(p, fd, mode == unix.O_WRONLY && p.fsync, err); err != nil {
		return err
	}
	w.endTimed(p, clock.Now(), ops*block, ops)
	return nil
}

// randCalls are the calls that write and read a random phase's block at
// its offset (--rand-call).
func randCalls(c settings.RandCall) (pwrite, pread func(int, []byte, int64) (int, error)) {
	if c == settings.CallLseek {
		return rawSeekWrite, rawSeekRead
	}
	return rawPwrite, rawPread
}

// randomOps is the timed loop of the random phases; it returns the
// operations done. A write puts the pattern for its offset in place before
// the clock starts, so the file stays verifiable; a verified read is
// checked after the clock stops (see readRecords). buf holds one block,
// or for a writer of blocks that bodyWindows accepts, a whole pattern
// period filled at offset 0, whose window for the offset only needs its
// stamps.
func (w *worker) randomOps(p *phaseParams, fd int, buf []byte, gen *offsetGen, total int64, src source) (int64, error) {
	if w.uring != nil {
		write := p.name == wire.RandWrite
		return w.uringLoop(p, fd, w.uring, uringJob{write: write, total: total, block: p.block, next: gen.next,
			windows: write && bodyWindows(p.block), src: src, whole: gen.m.whole})
	}
	write := p.name == wire.RandWrite
	block := p.block
	windows := write && int64(len(buf)) == patternPeriod && bodyWindows(block)
	period := buf
	buf = buf[:block]
	// A thread writes its own data; over a whole shared file, the data of
	// the thread whose part each offset lies in, so the file stays
	// verifiable.
	owner := func(int64) uint32 { return w.pat.thread }
	if gen.m.whole {
		owner = src.m.owner
	}
	pwrite, pread := randCalls(p.randCall)
	var ops int64
	for ops < total {
		if p.stop.Load() {
			return ops, errStopped
		}
		if w.stopBefore(p, ops*block, ops) {
			break
		}
		off := gen.next()
		var err error
		switch {
		case windows:
			at := off % patternPeriod
			buf = period[at : at+block]
			w.pat.stampAs(buf, off, owner(off))
		case write:
			w.pat.fillAs(buf, off, owner(off))
		}
		t0 := clock.Now()
		if write {
			err = writeAll(pwrite, fd, buf, off)
		} else {
			err = readAll(pread, fd, buf, off)
		}
		t1 := clock.Now()
		if err != nil {
			return ops, fmt.Errorf("%s %s at offset %d: %w", p.name, src.path, off, err)
		}
		if !write && p.verify {
			if err := src.check(buf, off); err != nil {
				return ops, fmt.Errorf("verify %s: %w", src.path, err)
			}
		}
		ops++
		w.done.Store(ops * block)
		if !w.account(p, t0, t1, ops, ops*block, ops < total) || w.stopAfter(p, ops*block, ops, block, ops < total) {
			break
		}
	}
	return ops, nil
}
