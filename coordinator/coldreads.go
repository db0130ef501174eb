package coordinator

import (
	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/wire"
)

// coldReads is what a job knows about who touched its files, so that
// every read can move to nodes that did not and say where none was left.
type coldReads struct {
	touch *touches
	// rotating: reads move to untouched nodes (--read-shift auto or N>0,
	// on two nodes or more sharing --dir); exhausted: the current read
	// phase found no placement where every node is untouched.
	rotating, exhausted bool
	// readersUnknown: the kept job's manifest predates read_by.
	readersUnknown bool
	// nodeLocal: the marker test found --dir to be each node's own.
	nodeLocal bool
	// dropBy[r] is the method rank r used for the current phase's drop.
	dropBy []settings.DropMethod
	// kernel[host] is the node's boot id.
	kernel map[string]string
}

// initColdReads starts the record of touched files: each owned by its
// thread's node.
func (j *job) initColdReads() {
	j.cold.touch = newTouches(j.o.Threads, j.hostOfThread)
	j.cold.rotating = j.o.ReadShift != 0 && len(distinctNodes(j.threads, j.hostsByRank())) >= 2
}

// hostsByRank is the host of every rank of the session.
func (j *job) hostsByRank() []string {
	hosts := make([]string, len(j.s.targets))
	for r, t := range j.s.targets {
		hosts[r] = t.Host
	}
	return hosts
}

// applyKept adds what the kept job's manifest says of its files' writers
// and readers.
func (j *job) applyKept(m wire.Manifest) {
	for f, h := range m.WrittenBy {
		j.cold.touch.add(f, h)
	}
	if len(m.ReadBy) != m.Threads {
		j.cold.readersUnknown = true
		return
	}
	for f, hs := range m.ReadBy {
		for _, h := range hs {
			j.cold.touch.add(f, h)
		}
	}
}

// keptTouches is the manifest's record of the files' writers and
// readers, as far as this job knows them.
func (j *job) keptTouches(m *wire.Manifest) {
	m.WrittenBy = make([]string, j.o.Threads)
	m.ReadBy = make([][]string, j.o.Threads)
	for f := range m.WrittenBy {
		m.WrittenBy[f] = j.hostOfThread(f)
		m.ReadBy[f] = []string{}
		for _, h := range j.cold.touch.by[f] {
			if h != m.WrittenBy[f] {
				m.ReadBy[f] = append(m.ReadBy[f], h)
			}
		}
	}
	if j.cold.readersUnknown {
		m.ReadBy = nil // still unknown: earlier readers were never recorded
	}
}

// placeReads chooses, for a read phase, whose file each thread reads:
// while rotating, on nodes that have not touched it. It returns each
// rank's sources to send with the phase's prepare (nil: keep setup's).
func (j *job) placeReads(p *result.Phase) func(int) []int {
	j.cold.exhausted = false
	if !wire.Phase(p.Name).IsRead() {
		return func(int) []int { return nil }
	}
	if !j.cold.rotating {
		shift := j.shift
		p.ReadShift = &shift
		return j.sourcesOf
	}
	first := j.shift
	if first <= 0 {
		first = 1
	}
	src, shift, exhausted := coldSources(j.threads, j.hostsByRank(), first, j.cold.touch, j.hostOfThread)
	j.sources, j.cold.exhausted = src, exhausted
	p.ReadShift = &shift
	return j.sourcesOf
}

// noteTouches records which nodes touched which files in a phase that ran.
func (j *job) noteTouches(ph wire.Phase) {
	if ph.IsMeta() {
		return
	}
	if j.wholeFile(ph) {
		j.cold.touch.addAll(distinctNodes(j.threads, j.hostsByRank()))
		return
	}
	if !ph.IsRead() {
		return // each thread wrote its own file: its node has it already
	}
	for t, f := range j.sources {
		j.cold.touch.add(f, j.hostOfThread(t))
	}
}

// nodeReads gathers, node by node, what the verdict of read phase p
// depends on.
func (j *job) nodeReads(p *result.Phase) []nodeRead {
	resident := map[string]result.HostResidency{}
	for _, h := range p.ResidentByHost {
		resident[h.Host] = h
	}
	byHost := map[string]int{}
	var out []nodeRead
	var files []map[int]bool // files[i]: the files node out[i] reads
	whole := j.wholeFile(wire.Phase(p.Name))
	for r, th := range j.threads {
		if len(th) == 0 {
			continue
		}
		host := j.s.targets[r].Host
		i, seen := byHost[host]
		if !seen {
			i = len(out)
			byHost[host] = i
			n := nodeRead{host: host, rank: r, resident: resident[host].ResidentFraction,
				residentPages: resident[host].Pages, drop: j.dropOf(r)}
			if r < len(j.facts) {
				n.fsType, n.options = j.facts[r].FSType, j.facts[r].MountOptions
			}
			out = append(out, n)
			files = append(files, map[int]bool{})
		}
		out[i].drop = settings.Weaker(out[i].drop, j.dropOf(r))
		for _, t := range th {
			if !whole {
				files[i][j.fileRead(t)] = true
			}
		}
	}
	for i := range out {
		if whole {
			for f := range j.o.Threads {
				files[i][f] = true
			}
		}
		j.noteFileTouches(&out[i], files[i])
	}
	return out
}

// noteFileTouches marks n touched where it, or another node on its
// kernel, touched one of the files it reads.
func (j *job) noteFileTouches(n *nodeRead, files map[int]bool) {
	kernel := j.cold.kernel[n.host]
	for f := range files {
		if j.cold.touch.touched(f, n.host) {
			n.touched = true
		} else if j.cold.readersUnknown {
			n.readersUnknown = true
		}
		if kernel == "" || f < 0 || f >= len(j.cold.touch.by) {
			continue
		}
		for _, h := range j.cold.touch.by[f] {
			if h != n.host && j.cold.kernel[h] == kernel {
				n.kernelTouched = true
			}
		}
	}
}

// fileRead is the file thread t reads in the current read phase.
func (j *job) fileRead(t int) int {
	if t >= 0 && t < len(j.sources) {
		return j.sources[t]
	}
	return t
}

// noteKernels keeps each node's kernel (boot id, "" when unknown): nodes
// that share one share a page cache.
func (j *job) noteKernels(facts []nodefacts.Facts) {
	j.cold.kernel = map[string]string{}
	for r, t := range j.s.targets {
		if r < len(facts) && facts[r].BootID != "" {
			j.cold.kernel[t.Host] = facts[r].BootID
		}
	}
}

func (j *job) dropOf(r int) settings.DropMethod {
	if r < len(j.cold.dropBy) && j.cold.dropBy[r] != "" {
		return j.cold.dropBy[r]
	}
	return settings.DropNone
}
