package wire

// Layouts and patterns of the data files (--layout, --pattern, --rand-scope).
const (
	LayoutPerThread = "per-thread" // one file per thread (N-N), the default
	LayoutShared    = "shared"     // one file for all threads (N-1)
	PatternSegment  = "segmented"  // thread i owns the contiguous range [i·S, (i+1)·S)
	PatternStrided  = "strided"    // record j of thread i lies at (j·T + i)·block
	ScopeSegment    = "segment"    // random offsets within the thread's own part
	ScopeFile       = "file"       // random offsets anywhere in the shared file
)

// Where the metadata phases keep their files (--md-dir): a directory
// per thread, or one all threads share.
const (
	MDDirPerThread = "per-thread"
	MDDirShared    = "shared"
)

// The orders of random offsets (--rand-order): every block once per pass
// in a shuffled order (IOzone's -i2, fio's default), or uniform draws
// with replacement (fio's norandommap).
const (
	OrderShuffle = "shuffle"
	OrderUniform = "uniform"
)
