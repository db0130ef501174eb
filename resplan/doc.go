// Package resplan is the resource plan a job is held against before it
// starts: what each node's ranks need of memory (their threads' buffers
// and rings at the job's depth, latency histograms, operation logs, data
// patterns, thread stacks) and of the filesystem under --dir (bytes and
// inodes), against what the nodes said they have (nodefacts.Room).
// Needs that a node cannot meet become an error naming the node, the
// need and what there is, before any file is written.
//
// The estimate is pure and follows the rank's allocations (package rank
// says what it allocates; the constants here mirror it, with a margin):
// keep the two alike when either changes. It imports nodefacts,
// histogram (the size of a latency histogram), hostlist (to name many
// nodes at once), settings (the phases and engine it plans for) and
// units, nothing that runs a job.
package resplan
