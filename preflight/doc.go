// Package preflight checks the nodes of a host list before a benchmark
// runs on them: whether each is reachable, who ioswarm logs in as, the
// node's architecture and kernel, the filesystem type and free space of
// the benchmark directory, whether that directory takes a write, whether
// the page cache can be dropped, and how far the node's clocks are from
// this machine's, with the error bound of that estimate.
//
// Two halves: Probe and Serve run on the node (in `ioswarm hosts probe`),
// Check runs here and reaches the nodes through a launcher. It may import
// launcher, clock, mounts, nodefacts, uring, units and wire (the job
// directory's name), never barrier, rank or the coordinator: it
// must work on nodes where a benchmark cannot start.
package preflight
