// Package settings holds the enumerated settings of a job as types: the
// phases, the engine, the cache-drop mode and method, the data layout and
// pattern, the random scope and order, the metadata directory. Each has
// one parse, from the text a user gives its flag, whose error names the
// flag and the value, and a String method; the flags, the coordinator's
// workload, the messages to the ranks and the result file all hold these
// types. Their values are strings, so JSON holds each as the same word
// the flag takes (DESIGN §9), and a result file holding a value this
// build does not know still loads.
//
// It imports internal/usage (its parse errors are usage errors) and the
// standard library, nothing else, so that result and wire may import it.
package settings
