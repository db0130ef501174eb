package htmlreport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/units"
)

// Group is one study file as the report was given it: its name and the
// indices, in the list Build takes, of its sections (each a sweep). A
// sweep's file is a group of one.
type Group struct {
	Name     string
	Sections []int
}

// Study is one study file: its settings with a column per section, its
// nodes (unless every study shares them, see Document.Nodes), its
// command lines and the warnings its runs carried.
type Study struct {
	Name, Describe string
	Complete       bool
	Error          string
	// Sections are the settings table's column heads: the sections'
	// names, one empty name for a sweep (a table of name and value).
	Sections []string
	Config   []ConfigRow
	// SameAs names an earlier study whose settings are all the same
	// (sections, values): the settings are then not shown again.
	SameAs   string
	Nodes    []Node
	Commands []string
	Warnings []Warning
}

// ConfigRow is one setting of a study, its value in each section; Same
// says every section has the same value, shown once across the columns.
type ConfigRow struct {
	Name   string
	Values []string
	Same   bool
}

// Node is one node as the largest point of a study saw it.
type Node struct {
	Host, Kernel, FS, Mount, Memory, ClientCache string
	Ranks                                        int
}

// Warning is a warning the runs of a study carried, once however many
// points carried the same words (a fact of the nodes is said at every
// point), with where: "seq, 1, 2 and 4 threads; random, 2 threads".
type Warning struct {
	Where string
	Text  string
}

// groupsOf checks the groups given, or makes a group of each sweep.
func groupsOf(gs []Group, names []string) ([]Group, error) {
	if gs == nil {
		for i, n := range names {
			gs = append(gs, Group{Name: n, Sections: []int{i}})
		}
		return gs, nil
	}
	for _, g := range gs {
		if len(g.Sections) == 0 {
			return nil, fmt.Errorf("report: study %s has no section", g.Name)
		}
		for _, i := range g.Sections {
			if i < 0 || i >= len(names) {
				return nil, fmt.Errorf("report: study %s: no section %d", g.Name, i)
			}
		}
	}
	return gs, nil
}

// studyOf is one group's configuration, nodes, command lines and
// warnings, each said once for all its sections.
func studyOf(ss []*study.Sweep, g Group) Study {
	st := Study{Name: g.Name, Complete: true}
	var secs []*study.Sweep
	for _, i := range g.Sections {
		secs = append(secs, ss[i])
	}
	seenCmd := map[string]bool{}
	var warned warnings
	var columns [][][2]string
	for _, s := range secs {
		st.Sections = append(st.Sections, s.Section)
		st.Complete = st.Complete && s.Complete
		if st.Error == "" {
			st.Error = s.Error
		}
		columns = append(columns, configOf(s))
		for _, p := range s.Points {
			if c := p.CommandLine; c != "" && !seenCmd[c] {
				seenCmd[c] = true
				st.Commands = append(st.Commands, c)
			}
			for _, w := range p.Warnings {
				warned.add(w, s.Section, p.Config.Threads)
			}
		}
	}
	st.Warnings = warned.list()
	st.Config = configRows(columns)
	st.Nodes = nodesOf(secs)
	st.Describe = describe(secs)
	return st
}

// describe is a study's one line: a sweep's own, or the sections of a
// study and the system they ran on.
func describe(secs []*study.Sweep) string {
	if len(secs) == 1 {
		return secs[0].Describe()
	}
	var names []string
	hosts := 0
	for _, s := range secs {
		names = append(names, s.Section)
		hosts = max(hosts, s.Hosts())
	}
	return fmt.Sprintf("%d sections (%s) on %d nodes, %s", len(secs), strings.Join(names, ", "), hosts, secs[0].FSTypes())
}

// configOf is what shaped a sweep's runs, name and value.
func configOf(s *study.Sweep) [][2]string {
	su := s.Setup
	engine := su.Engine
	if engine == "" {
		engine = settings.Sync
	}
	threads := make([]string, len(s.Threads))
	for i, n := range s.Threads {
		threads[i] = strconv.Itoa(n)
	}
	return [][2]string{
		{"phases", su.Phases.Join(", ")},
		{"threads", strings.Join(threads, ", ")},
		{"size held fixed", s.SizeText()},
		{"record size", units.FormatSize(su.BlockSize)},
		{"random op size", units.FormatSize(su.RandBlockSize)},
		{"I/O", s.IOText() + ", fsync " + onOff(su.Fsync) + ", engine " + engine.String()},
		{"iterations per point", strconv.Itoa(su.Iterations)},
		{"directory", su.Dir},
		{"nodes", strconv.Itoa(s.Hosts())},
	}
}

// configRows lays the sections' settings side by side, a row per
// setting; every section lists the same settings in the same order.
func configRows(columns [][][2]string) []ConfigRow {
	var out []ConfigRow
	for r, kv := range columns[0] {
		row := ConfigRow{Name: kv[0], Same: true}
		for _, col := range columns {
			row.Values = append(row.Values, col[r][1])
			row.Same = row.Same && col[r][1] == kv[1]
		}
		out = append(out, row)
	}
	return out
}

// nodesOf lists the nodes of the largest point of any section, each
// once with its rank count.
func nodesOf(secs []*study.Sweep) []Node {
	// The largest point is found by position: this package names no
	// result type (its import rule).
	best, at, most := -1, -1, -1
	for i, s := range secs {
		for j, q := range s.Points {
			if len(q.Hosts) > most {
				best, at, most = i, j, len(q.Hosts)
			}
		}
	}
	if best < 0 {
		return nil
	}
	p := secs[best].Points[at]
	var out []Node
	seen := map[string]int{}
	for _, h := range p.Hosts {
		if i, ok := seen[h.Host]; ok {
			out[i].Ranks++
			continue
		}
		seen[h.Host] = len(out)
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

// shareSettings marks each study whose settings an earlier one already
// showed, so a comparison of two runs of one plan shows the table once.
func (d *Document) shareSettings() {
	for i := range d.Studies {
		for _, earlier := range d.Studies[:i] {
			if earlier.SameAs == "" && slices.Equal(earlier.Sections, d.Studies[i].Sections) &&
				slices.EqualFunc(earlier.Config, d.Studies[i].Config, sameRow) {
				d.Studies[i].SameAs = earlier.Name
				break
			}
		}
	}
}

func sameRow(a, b ConfigRow) bool {
	return a.Name == b.Name && slices.Equal(a.Values, b.Values)
}

// shareNodes moves the node table to the document when every study ran
// on the same nodes with the same facts, so it is shown once.
func (d *Document) shareNodes() {
	if len(d.Studies) < 2 || len(d.Studies[0].Nodes) == 0 {
		return
	}
	for _, st := range d.Studies[1:] {
		if !slices.Equal(st.Nodes, d.Studies[0].Nodes) {
			return
		}
	}
	d.Nodes = d.Studies[0].Nodes
	for i := range d.Studies {
		d.Studies[i].Nodes = nil
	}
}

// sourcesText says what the report was made from: "2 studies (4
// sections)", "1 study", "3 studies".
func sourcesText(studies []Study) string {
	sections := 0
	for _, st := range studies {
		sections += len(st.Sections)
	}
	text := plural(len(studies), "study", "studies")
	if sections != len(studies) {
		text += " (" + plural(sections, "section", "sections") + ")"
	}
	return text
}

func studyNames(studies []Study) []string {
	var out []string
	for _, st := range studies {
		out = append(out, st.Name)
	}
	return out
}

// nodesText is "this node" or "these 4 nodes".
func nodesText(ns []Node) string {
	if len(ns) == 1 {
		return "this node"
	}
	return fmt.Sprintf("these %d nodes", len(ns))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// onOff is a switch setting as the report shows it.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
