// Package study holds scaling studies: a sweep over thread counts (run
// by package sweep), its result file (a list of full single-run results),
// the thread-list syntax users type, the compact table printed as points
// complete, the loaders that accept either a sweep or a single run, and
// the point-by-point comparison of two systems.
//
// Figures come from the stored per-phase figures (means over iterations);
// this package never recomputes or redefines them.
//
// It reads and writes files and runs nothing: it imports the standard
// library and ioswarm/figures, internal/usage, report, result, settings,
// units and wire; it must not import coordinator, chart, progress, rank, barrier or
// launcher, nor anything that does (internal/importrules checks both).
package study
