// Package iozone is ioswarm's IOzone compatibility layer: it reads IOzone
// 3.49x command lines for the throughput (-t) and cluster (-+m) subset
// (Parse), maps them to ioswarm phases and thread counts, and prints
// IOzone 3.489's report stream line for line (WriteHeader, WriteReport,
// WriteEnd: banner, option lines, Children see, Parent sees, Min/Max/Avg
// throughput per process, Min xfer, -C per-child lines, the -R table)
// computed from ioswarm's per-thread records with IOzone's definitions;
// ioswarm's own figures are printed apart (WriteOwnReport) and all of it
// is in the JSON (NewResult).
//
// The definitions follow iozone.c (throughput_test, thread_write_test,
// thread_ranread_test, multi_throughput_test); docs/iozone.md says which
// parts of that source each function mirrors and where the numbers must
// differ. No IOzone code is copied.
//
// The package may import only the standard library, ioswarm/figures (the
// one expression for a rate), ioswarm/result, ioswarm/settings (the
// result's own words, such as how a phase's cache was dropped),
// ioswarm/units and ioswarm/internal/usage (to quote the values its errors
// echo), so the command that wires it in stays a thin layer.
package iozone
