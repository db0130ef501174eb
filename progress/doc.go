// Package progress shows a running phase's progress while a job runs: on
// a terminal one line per phase, redrawn in place, with the aggregate
// rate, percent done and ETA; in batch logs a plain line every interval.
// Its Reporter implements coordinator.Progress, which feeds it the
// ranks' own counters.
//
// Progress is best effort: a failed write to the terminal or log never
// fails the job.
//
// It imports only the standard library, golang.org/x/sys/unix and units;
// it must not import coordinator, rank, barrier or launcher (coordinator
// reaches it through its interface).
package progress
