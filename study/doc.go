// Package study holds scaling studies: a sweep over thread counts run on
// one set of ranks, its result file (a list of full single-run results),
// the thread-list syntax users type, the compact table printed as points
// complete, the loaders that accept either a sweep or a single run, and
// the point-by-point comparison of two systems.
//
// Figures come from the stored per-phase figures (means over iterations);
// this package never recomputes or redefines them.
//
// It imports the standard library and ioswarm/coordinator, figures,
// internal/usage, report, result and units; it must not import chart, progress, rank,
// barrier or launcher (ranks are reached only through coordinator).
package study
