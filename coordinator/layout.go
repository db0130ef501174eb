package coordinator

import (
	"slices"
	"strings"

	"ioswarm/units"
	"ioswarm/wire"
)

// isMD says whether a phase is a metadata phase.
func isMD(name string) bool { return wire.Phase(name).IsMeta() }

// hasMD says whether the job runs a metadata phase.
func (o *Workload) hasMD() bool { return slices.ContainsFunc(o.Phases, isMD) }

// sharedOnly is v for a shared layout, empty (not recorded) otherwise.
func (o *Workload) sharedOnly(v string) string {
	if o.Layout != wire.LayoutShared {
		return ""
	}
	return v
}

// onlyMD says whether every phase is a metadata phase: no data file.
func (o *Workload) onlyMD() bool {
	return len(o.Phases) > 0 && !slices.ContainsFunc(o.Phases, func(p string) bool { return !isMD(p) })
}

// noDataSizes settles the data sizes of a job that writes no data file:
// --total and --file-size shape nothing, so they are not checked, and the
// result says total 0. (A rank still gets a nominal file size of one
// record, which it never uses.)
func (o *Workload) noDataSizes() {
	if o.Block <= 0 {
		o.Block = 16 << 20
	}
	if o.RandBlock <= 0 {
		o.RandBlock = 4096
	}
	o.FileSize, o.Total, o.TotalAuto = o.Block, 0, false
}

// validateLayout checks --layout, --pattern and --rand-scope; empty
// values (options built in Go) are the defaults.
func (o *Workload) validateLayout() error {
	if o.Layout == "" {
		o.Layout = wire.LayoutPerThread
	}
	if o.Pattern == "" {
		o.Pattern = wire.PatternSegment
	}
	if o.RandScope == "" {
		o.RandScope = wire.ScopeSegment
	}
	switch o.Layout {
	case wire.LayoutPerThread, wire.LayoutShared:
	default:
		return usagef("--layout %q: must be per-thread or shared", o.Layout)
	}
	switch o.Pattern {
	case wire.PatternSegment, wire.PatternStrided:
	default:
		return usagef("--pattern %q: must be segmented or strided", o.Pattern)
	}
	switch o.RandScope {
	case wire.ScopeSegment, wire.ScopeFile:
	default:
		return usagef("--rand-scope %q: must be segment or file", o.RandScope)
	}
	if o.Layout != wire.LayoutShared {
		if o.Pattern != wire.PatternSegment {
			return usagef("--pattern %s: needs --layout shared (a per-thread file has one thread's records only)", o.Pattern)
		}
		if o.RandScope != wire.ScopeSegment {
			return usagef("--rand-scope %s: needs --layout shared", o.RandScope)
		}
		return nil
	}
	// A strided thread's random operation must lie inside one of its
	// records, and O_DIRECT offsets stay aligned: every offset in a shared
	// file is a multiple of --block, --rand-block or the segment, all
	// 4 KiB multiples with --direct (validateSizes).
	if o.Pattern == wire.PatternStrided && o.needsRand() && o.Block%o.RandBlock != 0 {
		return usagef("--pattern strided: --block %s is not a multiple of --rand-block %s; a random operation must lie inside one record",
			units.FormatSize(o.Block), units.FormatSize(o.RandBlock))
	}
	return nil
}

// maxFilesPerThread bounds --files-per-thread: a thread's metadata files
// are one directory's worth at most.
const maxFilesPerThread = 100_000_000

// validateMD checks --files-per-thread, --md-dir and --md-size.
func (o *Workload) validateMD() error {
	if o.MDDir == "" {
		o.MDDir = wire.MDDirPerThread
	}
	if o.MDDir != wire.MDDirPerThread && o.MDDir != wire.MDDirShared {
		return usagef("--md-dir %q: must be per-thread or shared", o.MDDir)
	}
	if o.MDSize < 0 || o.MDSize > 1<<30 {
		return usagef("--md-size %d: must be 0 to 1GiB", o.MDSize)
	}
	if !o.hasMD() {
		return nil
	}
	if o.FilesPerThread < 1 || o.FilesPerThread > maxFilesPerThread {
		return usagef("--files-per-thread %d: metadata phases need 1 to %d files per thread", o.FilesPerThread, maxFilesPerThread)
	}
	if o.Engine == "io_uring" {
		return usagef("--engine io_uring: the metadata phases (%s) run on the sync engine only", mdList(o.Phases))
	}
	if o.Reuse != "" {
		return usagef("--reuse: the metadata phases (%s) make their own files; run them without --reuse", mdList(o.Phases))
	}
	return nil
}

func mdList(phases []string) string {
	var md []string
	for _, p := range phases {
		if isMD(p) {
			md = append(md, p)
		}
	}
	return strings.Join(md, ",")
}
