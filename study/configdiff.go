package study

import (
	"fmt"
	"slices"
	"strconv"

	"ioswarm/units"
	"ioswarm/wire"
)

// ConfigDiff names what differs between the two studies' configurations
// beyond the thread counts: sizes, record sizes, O_DIRECT, fsync, the
// number of nodes.
func ConfigDiff(a, b *Sweep) []string {
	var out []string
	diff := func(what, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: A %s, B %s", what, x, y))
		}
	}
	sa, sb := a.Setup, b.Setup
	diff("size", a.SizeText(), b.SizeText())
	diff("records", units.FormatSize(sa.BlockSize), units.FormatSize(sb.BlockSize))
	if hasRandom(a) && hasRandom(b) {
		diff("random ops", units.FormatSize(sa.RandBlockSize), units.FormatSize(sb.RandBlockSize))
	}
	diff("O_DIRECT", onOff(sa.Direct), onOff(sb.Direct))
	diff("O_SYNC", onOff(sa.OSync), onOff(sb.OSync))
	diff("O_DSYNC", onOff(sa.ODSync), onOff(sb.ODSync))
	diff("fsync", onOff(sa.Fsync), onOff(sb.Fsync))
	diff("nodes", strconv.Itoa(a.Hosts()), strconv.Itoa(b.Hosts()))
	return out
}

func hasRandom(s *Sweep) bool {
	return slices.ContainsFunc(s.Phases(), func(p string) bool { return wire.Phase(p).CountsOps() })
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
