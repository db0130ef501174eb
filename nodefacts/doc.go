// Package nodefacts gathers what a node can tell about the memory that
// could cache a benchmark's files and about the filesystem under the
// benchmark directory: total memory, the kernel's boot id (nodes that
// report the same one share a kernel, and so a page cache), the mount
// holding the directory (type, source, options), its block size and,
// where the tools are installed, Lustre's client cache limit and stripe
// settings and GPFS's pagepool; and the room the node has for a job (its
// available memory, bounded by its memory cgroup, and the free space and
// inodes under the directory), which the resource plan holds the job's
// needs against.
//
// It also holds the pure rules built on those facts: which node's
// filesystem differs from the rest, and how much memory all the clients
// can cache between them.
//
// It imports the standard library, golang.org/x/sys/unix, ioswarm/mounts,
// ioswarm/clientcache (which names the mount's client cache) and
// ioswarm/units; the rank and the preflight use it, so it must not
// import either, nor barrier, launcher or the coordinator.
package nodefacts
