// Package barrier holds the protocol between the coordinator (the process the
// user started) and the rank processes, one per node, over TCP.
//
// It does the connection work and nothing about benchmarks: the framing, the
// handshake that checks protocol version, job and binary hash, the mutual
// HMAC proof of the job secret (the rank's comes in its very first frame,
// so strangers are dropped before they hold anything a rank needs; see
// admit.go), a MAC on every frame after the handshake under keys of that
// connection (seal.go), the clock-offset probe, heartbeats both ways, and
// failure detection that names the host and rank at fault. Connections
// that do not prove the secret are counted by source and summarised in a
// few log lines, never logged one by one. On top of
// that it moves opaque JSON bodies keyed by a kind string: the coordinator's
// Call sends one request to every rank and returns when every rank has
// replied, which is the barrier; ranks may also send unsolicited notes.
//
// What a request means (a phase, a record, a release time) belongs to the
// callers. This package must not import any other package of the project
// except ioswarm/clock; in particular it must not import the launcher or the
// rank engine, so either can be tested against it alone.
package barrier
