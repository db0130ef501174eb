package study

import (
	"fmt"
	"sort"
	"strings"

	"ioswarm/units"
	"ioswarm/wire"
)

// Hosts is the largest number of hosts any point used: the size of the
// system the sweep ran on (points with fewer threads than hosts use only
// the first hosts).
//
// Hosts are counted by name: several local ranks on one machine are one
// host, and a chart must not claim a cluster it did not have.
func (s *Sweep) Hosts() int {
	n := 0
	for _, p := range s.Points {
		names := map[string]bool{}
		for _, h := range p.Hosts {
			names[h.Host] = true
		}
		n = max(n, len(names))
	}
	return n
}

// Ranks is the largest number of rank processes any point used.
func (s *Sweep) Ranks() int {
	n := 0
	for _, p := range s.Points {
		n = max(n, len(p.Hosts))
	}
	return n
}

// FSTypes lists the distinct filesystem types of the directory under test
// over every point's hosts, sorted; more than one means the nodes did not
// all see the same filesystem.
func (s *Sweep) FSTypes() string {
	seen := map[string]bool{}
	var types []string
	for _, p := range s.Points {
		for _, h := range p.Hosts {
			if h.FSType != "" && !seen[h.FSType] {
				seen[h.FSType] = true
				types = append(types, h.FSType)
			}
		}
	}
	if len(types) == 0 {
		return "unknown fs"
	}
	sort.Strings(types)
	return strings.Join(types, "+")
}

// SizeText says what size was held fixed: "aggregate 1 GiB fixed" or
// "64 MiB per thread"; "no data files" for metadata phases alone.
func (s *Sweep) SizeText() string {
	if s.Setup.Sizing == SizingFileSize {
		return units.FormatSize(s.Setup.FileSize) + " per thread"
	}
	if s.Setup.Total == 0 {
		return "no data files"
	}
	return "aggregate " + units.FormatSize(s.Setup.Total) + " fixed"
}

// IOText is how the sweep's data went to the filesystem, as its chart's
// title and its report's settings name it: "buffered" or "O_DIRECT", and
// ", O_SYNC" or ", O_DSYNC" when every file was opened so.
func (s *Sweep) IOText() string {
	io := "buffered"
	if s.Setup.Direct {
		io = "O_DIRECT"
	}
	return io + s.syncText()
}

// syncText is ", O_SYNC" or ", O_DSYNC" when every file was opened so.
func (s *Sweep) syncText() string {
	switch {
	case s.Setup.OSync:
		return ", O_SYNC"
	case s.Setup.ODSync:
		return ", O_DSYNC"
	}
	return ""
}

// BlockText names the record sizes the phases used (random phases' only
// when there are random phases) and how the I/O bypassed or skipped
// what a default run does: O_DIRECT, no fsync.
func (s *Sweep) BlockText() string {
	text := units.FormatSize(s.Setup.BlockSize) + " records"
	for _, p := range s.Phases() {
		if wire.Phase(p).CountsOps() {
			text += ", " + units.FormatSize(s.Setup.RandBlockSize) + " random ops"
			break
		}
	}
	if s.Setup.Direct {
		text += ", O_DIRECT"
	}
	text += s.syncText()
	if !s.Setup.Fsync {
		text += ", no fsync"
	}
	return text
}

// Describe is the one-line configuration that titles a table or chart:
// record sizes, the fixed size, hosts and filesystem type. Before any
// point has run the hosts and filesystem are not known yet and are left
// out.
func (s *Sweep) Describe() string {
	if len(s.Points) == 0 {
		return s.BlockText() + ", " + s.SizeText()
	}
	nodes := "1 node"
	if n := s.Hosts(); n != 1 {
		nodes = fmt.Sprintf("%d nodes", n)
	}
	return fmt.Sprintf("%s, %s, %s, %s", s.BlockText(), s.SizeText(), nodes, s.FSTypes())
}
