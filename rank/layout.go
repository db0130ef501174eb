package rank

import "ioswarm/settings"

// fileMap places a thread's data in the file it uses. Every thread moves
// seg bytes, which it addresses as logical offsets 0..seg; the map says
// where each lies in the file. In a per-thread file (the zero value) a
// logical offset is the file offset. In a shared file of threads × seg
// bytes, segmented puts the thread's bytes at thread·seg + logical, and
// strided cuts them into records of block bytes and interleaves the
// threads' records: record j of thread i at (j·threads + i)·block. Both
// are exact partitions: every byte of the shared file belongs to exactly
// one thread (see owner), whatever the thread count, since every thread
// has the same whole number of records.
//
// whole makes the map address the whole shared file (--rand-scope file):
// logical offsets 0..threads·seg are file offsets, and owner still says
// whose part each lies in.
type fileMap struct {
	pattern settings.Pattern // "" for a per-thread file
	thread  int64            // the thread whose part this map addresses
	threads int64
	seg     int64 // bytes per thread
	block   int64 // strided: the record size that is interleaved
	whole   bool
}

// sharedMap is thread's map in a shared file of threads parts of seg bytes.
func sharedMap(pattern settings.Pattern, thread, threads int, seg, block int64) fileMap {
	return fileMap{pattern: pattern, thread: int64(thread), threads: int64(threads), seg: seg, block: block}
}

// shared says whether the map is into a shared file.
func (m fileMap) shared() bool { return m.pattern != "" }

// of is the same map for another thread's part.
func (m fileMap) of(thread int) fileMap {
	m.thread = int64(thread)
	return m
}

// wholeFile is the map that addresses all of the shared file.
func (m fileMap) wholeFile() fileMap {
	m.whole = true
	return m
}

// span is how many logical bytes the map addresses.
func (m fileMap) span() int64 {
	if m.whole {
		return m.seg * m.threads
	}
	return m.seg
}

// at is the file offset of logical offset l. Callers keep an operation
// inside one record (strided: block is a multiple of the operation size,
// checked by the coordinator), so the whole operation is contiguous.
func (m fileMap) at(l int64) int64 {
	switch {
	case m.whole:
		return l
	case m.pattern == settings.Segmented:
		return m.thread*m.seg + l
	case m.pattern == settings.Strided:
		return (l/m.block*m.threads+m.thread)*m.block + l%m.block
	}
	return l
}

// owner is the thread whose part holds file offset off: whose pattern a
// writer puts there and a verifier expects.
func (m fileMap) owner(off int64) uint32 {
	switch m.pattern {
	case settings.Segmented:
		return uint32(off / m.seg)
	case settings.Strided:
		return uint32(off / m.block % m.threads)
	}
	return uint32(m.thread)
}
