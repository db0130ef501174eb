// Package wire is the contract between the coordinator and its ranks:
// the request kinds, the body of every request and reply, and the names
// of what a job leaves on a node (the job directory, its thread files,
// the shared file, the manifest). Both sides build and read their
// messages from these types only, so a change to the contract is a change
// to this package. The settings a job carries (phases, engine, cache-drop
// mode, layout) are typed in package settings.
//
// It holds declarations and small pure functions. It imports clientcache,
// nodefacts, result (whose types travel in replies), settings and the
// standard library, nothing else: no transport, no engine
// (internal/importrules checks it).
package wire
