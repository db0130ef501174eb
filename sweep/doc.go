// Package sweep runs a scaling study: it validates every point of a
// sweep over thread counts (and queue depths), starts the ranks once for
// the largest point, and runs the points in order on them, collecting a
// study.Sweep.
//
// It is the one part of the studies that runs the engine, kept apart so
// that the offline tools (plot, compare, chart) link none of it. It
// imports the standard library and ioswarm/coordinator, internal/usage,
// result, study and units (internal/importrules checks it).
//
// A sweep survives what ends it early: after every point its caller may
// save it (Plan.Checkpoint), a later run continues a saved one (Resume,
// Plan.Kept), and a deadline (Plan.Deadline) keeps it from starting a
// point it cannot finish. A point that fails runs again on fresh ranks
// (Plan.Retries), and one that failed every try either stops the sweep
// or is recorded as failed while the rest run (Plan.KeepGoing).
//
// A study (RunStudy) is several sweeps, its sections, run in order on
// one launch: every point of every section is checked before the first
// runs, and the whole study is checkpointed after every point.
package sweep
