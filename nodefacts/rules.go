package nodefacts

import (
	"strings"
)

// FSKey names the filesystem under the benchmark directory so that two
// nodes measuring the same one get the same key. A remote source keeps
// only what follows the server ("nodeS:/gv0" and "10.0.0.5:/gv0" are one
// volume through two names; Lustre's "10.0.0.1@o2ib:/scratch" is
// "/scratch"). A local block device counts by type alone: nodes that each
// benchmark their own disk name it differently (/dev/sda1, /dev/nvme0n1p1)
// and are still alike.
func (f Facts) FSKey() string {
	src := f.FSSource
	switch {
	case strings.HasPrefix(src, "/dev/"):
		src = ""
	case strings.Contains(src, ":"):
		src = src[strings.LastIndexByte(src, ':')+1:]
		if len(src) > 1 {
			src = strings.TrimRight(src, "/")
		}
	}
	if src == "" {
		return f.FSType
	}
	return f.FSType + " " + src
}

// Describe is the filesystem as a user would recognise it.
func (f Facts) Describe() string {
	if f.FSSource == "" {
		return f.FSType
	}
	return f.FSType + " (" + f.FSSource + ")"
}

// OddFilesystems compares the nodes' FSKeys and returns the key most of
// them share (on a tie, the first node's) and the indices of the nodes
// that have another.
func OddFilesystems(keys []string) (common string, odd []int) {
	if len(keys) == 0 {
		return "", nil
	}
	count := map[string]int{}
	for _, k := range keys {
		count[k]++
	}
	common = keys[0]
	for _, k := range keys {
		if count[k] > count[common] {
			common = k
		}
	}
	for i, k := range keys {
		if k != common {
			odd = append(odd, i)
		}
	}
	return common, odd
}

// ClientCache is how much the given nodes' caches hold between them.
// Nodes that report one boot id share a kernel and so one page cache
// (containers, namespaces, several ranks on a host): it counts once, with
// the largest figure any of them gave. A node with no boot id counts on
// its own. kernels is the number of distinct caches counted.
//
// A client cache outside the page cache (a ceph-fuse object cacher, a GPFS
// pagepool) is one per node, not per kernel, but it lives in the kernel's
// memory too: a kernel counts the larger of its page-cache figure and the
// sum of its nodes' outside caches. That is the memory itself wherever the
// memory is known; the outside caches decide where it is not, or where
// the page cache is held below it (Lustre's max_cached_mb).
func ClientCache(facts []Facts) (bytes int64, kernels int) {
	type kernel struct{ page, outside int64 }
	byKernel := map[string]kernel{}
	for _, f := range facts {
		var out int64
		if f.ClientCache.Outside {
			out = f.ClientCache.Size
		}
		if f.BootID == "" {
			bytes += max(f.CacheBytes, out)
			kernels++
			continue
		}
		k := byKernel[f.BootID]
		byKernel[f.BootID] = kernel{page: max(k.page, f.CacheBytes), outside: k.outside + out}
	}
	for _, k := range byKernel {
		bytes += max(k.page, k.outside)
	}
	return bytes, kernels + len(byKernel)
}
