package coordinator

import (
	"slices"
	"strings"

	"ioswarm/settings"
	"ioswarm/units"
)

// hasMD says whether the job runs a metadata phase.
func (o *Workload) hasMD() bool { return slices.ContainsFunc(o.Phases, settings.Phase.IsMeta) }

// onlyMD says whether every phase is a metadata phase: no data file.
func (o *Workload) onlyMD() bool {
	return len(o.Phases) > 0 && !slices.ContainsFunc(o.Phases, func(p settings.Phase) bool { return !p.IsMeta() })
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

// validateLayout checks --layout, --pattern and --rand-scope.
func (o *Workload) validateLayout() error {
	for _, check := range []func() error{o.Layout.Check, o.Pattern.Check, o.RandScope.Check} {
		if err := check(); err != nil {
			return err
		}
	}
	if o.Layout != settings.Shared {
		if o.Pattern != settings.Segmented {
			return usagef("--pattern %s: needs --layout shared (a per-thread file has one thread's records only)", o.Pattern)
		}
		if o.RandScope != settings.ScopeSegment {
			return usagef("--rand-scope %s: needs --layout shared", o.RandScope)
		}
		return nil
	}
	// A strided thread's random operation must lie inside one of its
	// records, and O_DIRECT offsets stay aligned: every offset in a shared
	// file is a multiple of --block, --rand-block or the segment, all
	// 4 KiB multiples with --direct (validateSizes).
	if o.Pattern == settings.Strided && o.needsRand() && o.Block%o.RandBlock != 0 {
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
	if err := o.MDDir.Check(); err != nil {
		return err
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
	if o.Engine == settings.IOUring {
		return usagef("--engine io_uring: the metadata phases (%s) run on the sync engine only", mdList(o.Phases))
	}
	if o.Reuse != "" {
		return usagef("--reuse: the metadata phases (%s) make their own files; run them without --reuse", mdList(o.Phases))
	}
	return nil
}

func mdList(phases []settings.Phase) string {
	var md []string
	for _, p := range phases {
		if p.IsMeta() {
			md = append(md, p.String())
		}
	}
	return strings.Join(md, ",")
}
