package settings

// Layout is how the data files are laid out (--layout).
type Layout string

// The layouts.
const (
	PerThread Layout = "per-thread" // one file per thread (N-N), the default
	Shared    Layout = "shared"     // one file for all threads (N-1)
)

// ParseLayout reads --layout.
func ParseLayout(text string) (Layout, error) { return parseWord("layout", text, PerThread, Shared) }

func (l Layout) String() string { return string(l) }

// Check says whether l is a layout, as its parse would.
func (l Layout) Check() error { _, err := ParseLayout(string(l)); return err }

// Pattern is where each thread's records lie in a shared file (--pattern).
type Pattern string

// The patterns.
const (
	Segmented Pattern = "segmented" // thread i owns the contiguous range [i·S, (i+1)·S)
	Strided   Pattern = "strided"   // record j of thread i lies at (j·T + i)·block
)

// ParsePattern reads --pattern.
func ParsePattern(text string) (Pattern, error) {
	return parseWord("pattern", text, Segmented, Strided)
}

func (p Pattern) String() string { return string(p) }

// Check says whether p is a pattern, as its parse would.
func (p Pattern) Check() error { _, err := ParsePattern(string(p)); return err }

// RandScope is where a shared file's random phases draw their offsets
// (--rand-scope).
type RandScope string

// The random scopes.
const (
	ScopeSegment RandScope = "segment" // random offsets within the thread's own part
	ScopeFile    RandScope = "file"    // random offsets anywhere in the shared file
)

// ParseRandScope reads --rand-scope.
func ParseRandScope(text string) (RandScope, error) {
	return parseWord("rand-scope", text, ScopeSegment, ScopeFile)
}

func (s RandScope) String() string { return string(s) }

// Check says whether s is a random scope, as its parse would.
func (s RandScope) Check() error { _, err := ParseRandScope(string(s)); return err }

// RandOrder is the random phases' order of offsets (--rand-order).
type RandOrder string

// The orders: every block once per pass in a shuffled order (IOzone's
// -i2, fio's default), or uniform draws with replacement (fio's
// norandommap).
const (
	Shuffle RandOrder = "shuffle"
	Uniform RandOrder = "uniform"
)

// ParseRandOrder reads --rand-order.
func ParseRandOrder(text string) (RandOrder, error) {
	return parseWord("rand-order", text, Shuffle, Uniform)
}

func (o RandOrder) String() string { return string(o) }

// Check says whether o is an order, as its parse would.
func (o RandOrder) Check() error { _, err := ParseRandOrder(string(o)); return err }

// RandCall is how the random phases' sync engine places an operation
// at its offset (--rand-call).
type RandCall string

// The calls: pread(2) or pwrite(2) at the offset (fio's psync engine), or
// lseek(2) to the offset and then read(2) or write(2), two system calls
// per operation, as IOzone's random tests (-i2) and fio's sync engine do.
// Where the page cache serves the operation, the second call costs about
// a seventh of its rate (4 KiB reads).
const (
	CallPread RandCall = "pread"
	CallLseek RandCall = "lseek"
)

// ParseRandCall reads --rand-call.
func ParseRandCall(text string) (RandCall, error) {
	return parseWord("rand-call", text, CallPread, CallLseek)
}

func (c RandCall) String() string { return string(c) }

// Check says whether c is a call, as its parse would.
func (c RandCall) Check() error { _, err := ParseRandCall(string(c)); return err }

// MDDir is where the metadata phases keep their files (--md-dir): a
// directory per thread, or one all threads share.
type MDDir string

// The metadata directories.
const (
	MDDirPerThread MDDir = "per-thread"
	MDDirShared    MDDir = "shared"
)

// ParseMDDir reads --md-dir.
func ParseMDDir(text string) (MDDir, error) {
	return parseWord("md-dir", text, MDDirPerThread, MDDirShared)
}

func (d MDDir) String() string { return string(d) }

// Check says whether d is a metadata directory, as its parse would.
func (d MDDir) Check() error { _, err := ParseMDDir(string(d)); return err }
