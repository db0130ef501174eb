package settings

import "slices"

// DropMode is what the user asked of the cache drop before each phase
// (--drop-caches).
type DropMode string

// The cache-drop modes.
const (
	// DropAuto drops the page cache where the rank may (root), and
	// otherwise falls back to posix_fadvise per file, with a warning.
	DropAuto DropMode = "auto"
	DropOn   DropMode = "on"  // drop_caches or fail the job
	DropOff  DropMode = "off" // drop nothing
)

// ParseDropMode reads --drop-caches.
func ParseDropMode(text string) (DropMode, error) {
	return parseWord("drop-caches", text, DropAuto, DropOn, DropOff)
}

func (m DropMode) String() string { return string(m) }

// Check says whether m is a drop mode, as its parse would.
func (m DropMode) Check() error { _, err := ParseDropMode(string(m)); return err }

// DropMethod is how a node's caches were dropped before a phase, as its
// rank reports it and the result records it (a phase's "cache_drop").
type DropMethod string

// The cache-drop methods, weakest first.
const (
	DropNone    DropMethod = "none"        // nothing dropped
	DropFadvise DropMethod = "fadvise"     // posix_fadvise(DONTNEED) on each of the job's files
	DropCaches  DropMethod = "drop_caches" // sync, then /proc/sys/vm/drop_caches
	DropDirect  DropMethod = "direct"      // nothing to drop: O_DIRECT reads bypass the page cache
)

func (m DropMethod) String() string { return string(m) }

// dropOrder lists the methods from weakest to strongest.
var dropOrder = []DropMethod{DropNone, DropFadvise, DropCaches, DropDirect}

// Weaker is whichever of a and b left more of the cache in place: a
// phase is only as cold as its warmest node. A method this build does not
// know counts as none; of two as strong, a.
func Weaker(a, b DropMethod) DropMethod {
	if b.strength() < a.strength() {
		return b
	}
	return a
}

func (m DropMethod) strength() int { return max(slices.Index(dropOrder, m), 0) }
