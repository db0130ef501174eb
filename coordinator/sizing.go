package coordinator

import (
	"fmt"

	"ioswarm/settings"
	"ioswarm/units"
)

// The sizing rule: records of a size the engines accept, and --file-size
// or --total, whichever was given, in whole records for every thread; the
// other is derived from it.

func (o *Workload) validateSizes() error {
	if o.Block <= 0 {
		return usagef("--block: must be positive")
	}
	if o.Block%512 != 0 {
		return usagef("--block %d: must be a multiple of 512 bytes", o.Block)
	}
	if o.RandBlock <= 0 || o.RandBlock%512 != 0 {
		return usagef("--rand-block %d: must be a positive multiple of 512 bytes", o.RandBlock)
	}
	if o.Direct && (o.Block%4096 != 0 || o.RandBlock%4096 != 0) {
		return usagef("--direct needs --block and --rand-block aligned to 4 KiB (got %d and %d)", o.Block, o.RandBlock)
	}
	if (o.Total != 0 || o.TotalAuto) && o.FileSize != 0 {
		return usagef("--total and --file-size both given: use one (--total is divided among the threads)")
	}
	if o.TotalAuto {
		return nil // sized by autoTotal once the nodes are known
	}
	return o.validateAggregate()
}

// validateAggregate checks that FileSize or Total, whichever was given,
// makes whole records for every thread (settleAggregate then settles
// both).
func (o *Workload) validateAggregate() error {
	if o.FileSize == 0 {
		if o.Total <= 0 {
			return usagef("--total: must be positive")
		}
		per := o.Total / int64(o.Threads)
		if per < o.Block {
			return usagef("--total %s is smaller than --threads %d × --block %s; %s", units.FormatSize(o.Total), o.Threads,
				units.FormatSize(o.Block), o.tooSmallHint())
		}
		if o.Total%int64(o.Threads) != 0 || per%o.Block != 0 {
			lo := per / o.Block * o.Block * int64(o.Threads)
			return usagef("--total %s does not divide into %d threads × whole %s records; use --total %s or %s",
				units.FormatSize(o.Total), o.Threads, units.FormatSize(o.Block), units.FormatSize(lo), units.FormatSize(lo+o.Block*int64(o.Threads)))
		}
	} else {
		if o.FileSize < 0 {
			return usagef("--file-size: must be positive")
		}
		if o.FileSize%o.Block != 0 {
			lo := o.FileSize / o.Block * o.Block
			alt := units.FormatSize(lo + o.Block)
			if lo > 0 {
				alt = units.FormatSize(lo) + " or " + alt
			}
			return usagef("--file-size %s is not a whole number of %s records; use %s", units.FormatSize(o.FileSize), units.FormatSize(o.Block), alt)
		}
	}
	if o.needsRand() && o.perThread()%o.RandBlock != 0 {
		return usagef("--rand-block %s does not divide the file size %s", units.FormatSize(o.RandBlock), units.FormatSize(o.perThread()))
	}
	return nil
}

// perThread is each thread's file size: FileSize, or Total divided among
// the threads.
func (o *Workload) perThread() int64 {
	if o.FileSize != 0 {
		return o.FileSize
	}
	return o.Total / int64(o.Threads)
}

// settleSizes settles FileSize and Total of a validated workload (a
// --total auto one waits for the nodes, see sizeAuto).
func (o *Workload) settleSizes() {
	switch {
	case o.onlyMD():
		o.noDataSizes()
	case !o.TotalAuto:
		o.settleAggregate()
	}
}

// settleAggregate sets FileSize and Total from whichever was given.
func (o *Workload) settleAggregate() {
	o.FileSize = o.perThread()
	o.Total = o.FileSize * int64(o.Threads)
}

// tooSmallHint proposes what fits when --total cannot give every thread a
// whole record: the total that does, the most threads it can hold, and,
// where --block only sizes the records that prefill the random phases'
// files, the --block that makes each file one record.
func (o *Workload) tooSmallHint() string {
	hint := "use --total " + units.FormatSize(o.Block*int64(o.Threads)) + " or more"
	for t := o.Total / o.Block; t >= 1; t-- {
		if o.Total%t == 0 && (o.Total/t)%o.Block == 0 {
			hint = fmt.Sprintf("%s, or --threads %d or fewer", hint, t)
			break
		}
	}
	if b := o.prefillOnlyBlock(); b > 0 {
		hint += fmt.Sprintf(", or --block %s (the random phases use --block only to prefill their files)", units.FormatSize(b))
	}
	return hint
}

// prefillOnlyBlock is the --block that makes each thread's file one
// record, where the job's only data phases are random and its records do
// not interleave (a strided shared file's do, by --block): there --block
// sizes nothing but the prefill. 0 where that does not apply or no such
// block is valid.
func (o *Workload) prefillOnlyBlock() int64 {
	if !o.needsRand() || o.needsSeq() || (o.Layout == settings.Shared && o.Pattern == settings.Strided) {
		return 0
	}
	per, align := o.Total/int64(o.Threads), int64(512)
	if o.Direct {
		align = 4096
	}
	if o.Total%int64(o.Threads) != 0 || per%o.RandBlock != 0 || per%align != 0 {
		return 0
	}
	return per
}
