package resplan

import (
	"fmt"
	"strings"

	"ioswarm/hostlist"
	"ioswarm/nodefacts"
	"ioswarm/units"
)

// Node is one rank as the plan sees it: where it runs, how many of the
// job's threads, in which directory, and what its node said.
type Node struct {
	Host    string
	Rank    int
	Threads int
	Dir     string
	Facts   nodefacts.Facts
}

// Allow lets a job start past a check: for a filesystem that reports its
// free space or inodes wrongly, or an estimate the user knows is wrong.
type Allow struct {
	Space  bool // --ignore-space
	Memory bool // --ignore-memory
}

// Check holds the job's needs against every node's room. The first need
// not met is the error, naming the node (or the nodes sharing a kernel or
// a filesystem), what is needed and what there is.
func Check(j Job, nodes []Node, allow Allow) error {
	if !allow.Memory {
		if err := checkMemory(j, nodes); err != nil {
			return err
		}
	}
	if !allow.Space {
		return checkDisk(j, nodes)
	}
	return nil
}

// group is the ranks that share one kernel's memory or one filesystem.
type group struct {
	key   string
	nodes []Node
}

// groupBy collects the working ranks by key, in rank order.
func groupBy(nodes []Node, key func(Node) string) []group {
	index := map[string]int{}
	var gs []group
	for _, n := range nodes {
		if n.Threads == 0 {
			continue
		}
		k := key(n)
		i, ok := index[k]
		if !ok {
			i = len(gs)
			index[k] = i
			gs = append(gs, group{key: k})
		}
		gs[i].nodes = append(gs[i].nodes, n)
	}
	return gs
}

// Kernel groups ranks by the memory they draw on: their kernel (a boot
// id), or their host where none was given.
func Kernel(n Node) string {
	if n.Facts.BootID != "" {
		return "boot " + n.Facts.BootID
	}
	return "host " + n.Host
}

// who names a group's ranks: "host h rank r", or for several the hosts
// folded into ranges with a word on what they share.
func (g group) who(sharing string) string {
	if len(g.nodes) == 1 {
		return fmt.Sprintf("host %s rank %d", g.nodes[0].Host, g.nodes[0].Rank)
	}
	seen := map[string]bool{}
	var hosts []string
	for _, n := range g.nodes {
		if !seen[n.Host] {
			seen[n.Host] = true
			hosts = append(hosts, n.Host)
		}
	}
	if len(hosts) == 1 {
		return fmt.Sprintf("host %s (%d ranks)", hosts[0], len(g.nodes))
	}
	return fmt.Sprintf("hosts %s (%d ranks %s)", hostlist.Compress(hosts), len(g.nodes), sharing)
}

func (g group) threads() int {
	t := 0
	for _, n := range g.nodes {
		t += n.Threads
	}
	return t
}

func checkMemory(j Job, nodes []Node) error {
	for _, g := range groupBy(nodes, Kernel) {
		var need, buffers int64
		var avail int64 = -1
		for _, n := range g.nodes {
			m := RankMemory(j, n.Threads)
			need += m.Total()
			buffers += m.Buffers
			if a := n.Facts.MemAvailable; a > 0 && (avail < 0 || a < avail) {
				avail = a
			}
		}
		if avail < 0 || need <= avail {
			continue
		}
		return fmt.Errorf("%s: the job needs about %s of memory there (%s) and the node has %s available (%s): use fewer threads per node%s (--ignore-memory runs anyway)",
			g.who("sharing one kernel"), units.FormatBytes(need), j.memoryParts(g.threads(), buffers), units.FormatBytes(avail),
			memSource(g.nodes[0].Facts), j.memoryAdvice(buffers, need))
	}
	return nil
}

// memoryParts says where most of a need goes.
func (j Job) memoryParts(threads int, buffers int64) string {
	per := "1 buffer"
	if j.uring() {
		per = fmt.Sprintf("(1 + %d in flight)", max(j.IODepth, 1))
	}
	return fmt.Sprintf("%d threads × %s × %s = %s of I/O buffers, the rest the threads' state and the rank process",
		threads, per, units.FormatBytes(j.bufferSize()), units.FormatBytes(buffers))
}

// memoryAdvice names the flags beside --threads that shrink the need,
// where buffers are the most of it.
func (j Job) memoryAdvice(buffers, need int64) string {
	if 2*buffers < need {
		return ""
	}
	if j.uring() && j.IODepth > 1 {
		return ", a smaller --iodepth or a smaller --block/--rand-block"
	}
	return " or a smaller --block/--rand-block"
}

func memSource(f nodefacts.Facts) string {
	if f.MemLimitNote != "" {
		return f.MemLimitNote
	}
	return "MemAvailable"
}

// shared says whether the filesystem is one every node reaches (a
// network or parallel filesystem), as against one of each node's own.
func shared(f nodefacts.Facts) bool {
	switch f.FSType {
	case "lustre", "gpfs", "nfs", "nfs4", "cifs", "smb3", "ceph", "beegfs", "wekafs", "pvfs2", "orangefs", "panfs",
		"fuse.glusterfs", "glusterfs", "fuse.ceph-fuse", "fuse.ceph", "fuse.dfuse", "dfuse", "fuse.sshfs":
		return true
	}
	return strings.Contains(f.FSSource, ":")
}

// filesystemOf groups ranks by the filesystem they write: a shared one
// once for all the nodes on it, a node-local one per kernel and device.
func filesystemOf(n Node) string {
	if shared(n.Facts) {
		return "shared " + n.Facts.FSKey()
	}
	return Kernel(n) + " dev " + n.Facts.Device + " " + n.Facts.MountPoint
}

func checkDisk(j Job, nodes []Node) error {
	for _, g := range groupBy(nodes, filesystemOf) {
		var need Disk
		known := true
		free, inodes, total := int64(-1), int64(-1), int64(0)
		for _, n := range g.nodes {
			f := n.Facts
			d := RankDisk(j, n.Threads, f.BlockSize)
			need.Bytes += d.Bytes
			need.Inodes += d.Inodes
			if !f.SpaceKnown {
				known = false
				continue
			}
			if free < 0 || f.FreeBytes < free {
				free = f.FreeBytes
			}
			if f.TotalInodes > 0 && (inodes < 0 || f.FreeInodes < inodes) {
				inodes, total = f.FreeInodes, f.TotalInodes
			}
		}
		if !known || free < 0 {
			continue
		}
		first := g.nodes[0]
		where := fmt.Sprintf("%s: --dir %s (%s at %s)", g.who("on one filesystem"), first.Dir, first.Facts.Describe(), first.Facts.MountPoint)
		if need.Bytes > free {
			return fmt.Errorf("%s has %s free and the job writes %s there: use a smaller --total or --file-size, or fewer threads (--ignore-space runs anyway, for a filesystem that reports its free space wrongly)",
				where, units.FormatBytes(free), units.FormatBytes(need.Bytes))
		}
		if total > 0 && need.Inodes > inodes {
			return fmt.Errorf("%s has %d inodes free (of %d) and the job makes %d files and directories there: use a smaller --files-per-thread or fewer threads (--ignore-space runs anyway)",
				where, inodes, total, need.Inodes)
		}
	}
	return nil
}
