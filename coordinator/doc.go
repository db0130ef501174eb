// Package coordinator runs a job from the process the user started ("rank
// 0"): it validates the options, starts the ranks through a launcher, drives
// them phase by phase over the barrier, converts their timestamps to its
// own clock, reduces the records into figures and cleans up on every path.
//
// It does no I/O on the benchmark files itself, and it reaches the ranks
// only through messages: it imports barrier (the transport), wire (the
// messages), launcher, clientcache, clock, figures, histogram, hostlist (to name many
// nodes in one error), internal/usage, nodefacts, resplan (the resource
// plan), rankproto (the rank's argv and input), result, selfbin, settings
// and units, never rank (internal/importrules checks it).
package coordinator
