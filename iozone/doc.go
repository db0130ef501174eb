// Package iozone is ioswarm's IOzone compatibility layer: it reads IOzone
// 3.49x command lines for the throughput (-t) and cluster (-+m) subset
// (Parse), maps them to ioswarm phases and thread counts, and prints
// IOzone's own report lines (Children see, Parent sees, Min/Max/Avg
// throughput per process, Min xfer, -C per-child lines and the -R table)
// computed from ioswarm's per-thread records with IOzone's definitions,
// followed by ioswarm's own bandwidth over the global window.
//
// The definitions follow iozone.c (throughput_test, thread_write_test,
// thread_ranread_test, multi_throughput_test); docs/iozone.md says which
// parts of that source each function mirrors and where the numbers must
// differ. No IOzone code is copied.
//
// The package may import only the standard library, ioswarm/result and
// ioswarm/units, so the command that wires it in stays a thin layer.
package iozone
