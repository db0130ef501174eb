// Package rank is the rank process: it joins the coordinator, runs its share
// of the threads through each timed phase, drops caches, and reports one
// record per thread.
//
// A rank never decides anything about the job: every step is a request from
// the coordinator, answered once, in the messages package wire defines. It
// may import barrier (the transport), clientcache, clock, histogram,
// internal/usage, mounts, nodefacts, result, settings, units, uring and
// wire, never
// launcher or the coordinator
// (internal/importrules checks it).
package rank
