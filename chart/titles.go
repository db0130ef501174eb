package chart

import (
	"fmt"
	"strings"

	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/units"
	"ioswarm/wire"
)

// labels puts the configuration into the title and axis labels: record
// sizes, the fixed size, hosts and filesystem type. When studies differ
// in those, the title gives each its own line and the axes stay generic.
//
// The title is at most two lines: what is drawn, then the configuration
// (or, for studies that differ, how they differ).
func (c *content) labels(ss []*study.Sweep, names []string) {
	first := ss[0]
	same := true
	for _, s := range ss[1:] {
		same = same && subtitle(s) == subtitle(first)
	}
	// The configuration is in the title's second line; the axes say only
	// what they measure, so no label outgrows its panel.
	c.xLabel = "threads (log2 scale)"
	if c.byDepth {
		c.xLabel = fmt.Sprintf("iodepth per thread (log2 scale), %d threads", ss[0].Points[0].Config.Threads)
	}
	c.bwLabel = "bandwidth, GB/s (10^9 B/s)"
	c.iopsLabel = "IOPS"
	random, meta := false, false
	for _, s := range ss {
		for _, p := range s.Phases() {
			random = random || wire.Phase(p).IsRandom()
			meta = meta || wire.Phase(p).IsMeta()
		}
	}
	switch {
	case meta && !random:
		c.iopsLabel = "metadata operations/s"
	case meta:
		c.iopsLabel = "IOPS; metadata operations/s"
	case same && first.Setup.RandBlockSize > 0:
		c.iopsLabel = "IOPS, " + units.FormatSize(first.Setup.RandBlockSize) + " ops"
	}
	what := "scaling study"
	if len(ss) > 1 {
		what = "comparison"
	}
	if c.minX == c.maxX {
		// One point is no study of scaling.
		unit := "threads"
		if c.byDepth {
			unit = "iodepth"
		}
		what += fmt.Sprintf(" at %g %s", c.minX, unit)
	}
	head := "ioswarm " + what
	if len(ss) > 1 || names[0] != "this run" {
		head += ": " + strings.Join(names, " vs ")
	}
	sub := subtitle(first)
	if !same {
		sub = "configurations differ: " + strings.Join(study.ConfigDiff(first, ss[1]), "; ")
	}
	if c.iterations > 1 {
		// On the axis, not the title, which must fit its panel's width.
		c.barsNote = fmt.Sprintf("; bars: ± sample stddev of %d iterations", c.iterations)
	}
	c.head, c.sub = head, sub
	c.title = head + "\n" + sub
}

// subtitle is a study's configuration in one line: the I/O, the size
// held fixed, nodes × ranks and the filesystem.
func subtitle(s *study.Sweep) string {
	io := s.IOText()
	if s.Setup.Fsync {
		io += ", fsync"
	} else {
		io += ", no fsync"
	}
	if s.Setup.Engine == settings.IOUring {
		io += ", io_uring"
	}
	return fmt.Sprintf("%s, %s, %s, %s, %s", opText(s), io, s.SizeText(), nodesText(s), s.FSTypes())
}

// opText names the operation sizes of the phases the study ran: records
// for sequential phases, random ops for random ones.
func opText(s *study.Sweep) string {
	var parts []string
	for _, p := range s.Phases() {
		if !wire.Phase(p).CountsOps() {
			parts = append(parts, units.FormatSize(s.Setup.BlockSize)+" records")
			break
		}
	}
	for _, p := range s.Phases() {
		if wire.Phase(p).IsRandom() {
			parts = append(parts, units.FormatSize(s.Setup.RandBlockSize)+" random ops")
			break
		}
	}
	return strings.Join(parts, ", ")
}

// nodesText is "N nodes" or, where nodes ran several ranks, "N nodes × R ranks".
func nodesText(s *study.Sweep) string {
	n, r := s.Hosts(), s.Ranks()
	text := fmt.Sprintf("%d nodes", n)
	if n == 1 {
		text = "1 node"
	}
	if r > n {
		text += fmt.Sprintf(", %d ranks", r)
	}
	return text
}
