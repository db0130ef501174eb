package htmlreport

import (
	"strconv"
	"strings"

	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/units"
)

// studyOf is one study's configuration, command lines, warnings and
// nodes as the report shows them.
func studyOf(s *study.Sweep, name string) Study {
	st := Study{Name: name, Describe: s.Describe(), Complete: s.Complete, Error: s.Error}
	su := s.Setup
	io := "buffered"
	if su.Direct {
		io = "O_DIRECT"
	}
	engine := su.Engine
	if engine == "" {
		engine = settings.Sync
	}
	st.Config = [][2]string{
		{"phases", su.Phases.Join(", ")},
		{"size held fixed", s.SizeText()},
		{"record size", units.FormatSize(su.BlockSize)},
		{"random op size", units.FormatSize(su.RandBlockSize)},
		{"I/O", io + ", fsync " + onOff(su.Fsync) + ", engine " + engine.String()},
		{"iterations per point", strconv.Itoa(su.Iterations)},
		{"directory", su.Dir},
		{"nodes", strconv.Itoa(s.Hosts())},
	}
	seenCmd := map[string]bool{}
	for _, p := range s.Points {
		if c := p.CommandLine; c != "" && !seenCmd[c] {
			seenCmd[c] = true
			st.Commands = append(st.Commands, c)
		}
		for _, w := range p.Warnings {
			st.Warnings = append(st.Warnings, Warning{Threads: p.Config.Threads, Text: w})
		}
	}
	if len(s.Points) > 0 {
		st.Nodes = nodesOf(s)
	}
	return st
}

// nodesOf lists the nodes of the study's largest point, each once.
func nodesOf(s *study.Sweep) []Node {
	p := s.Points[0]
	for _, q := range s.Points {
		if len(q.Hosts) > len(p.Hosts) {
			p = q
		}
	}
	var out []Node
	at := map[string]int{}
	for _, h := range p.Hosts {
		if i, ok := at[h.Host]; ok {
			out[i].Ranks++
			continue
		}
		at[h.Host] = len(out)
		cache := "page cache"
		if len(h.CacheNotes) > 0 {
			cache = strings.Join(h.CacheNotes, "; ")
		}
		if h.CacheBytes > 0 {
			cache = units.FormatBytes(h.CacheBytes) + ": " + cache
		}
		mount, memory := "not recorded", "not recorded"
		if h.MountPoint != "" {
			mount = strings.TrimPrefix(h.FSSource+" on "+h.MountPoint, " on ")
		}
		if h.MemTotal > 0 {
			memory = units.FormatBytes(h.MemTotal)
		}
		out = append(out, Node{Host: h.Host, Kernel: h.Kernel, FS: h.FSType, Mount: mount, Memory: memory, ClientCache: cache, Ranks: 1})
	}
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
