// Package selfbin knows this process's own binary: where it is and its
// SHA-256, the identity the handshake compares and the name a placed copy
// is cached under. Each is found once per process and kept, so the
// launchers and the coordinator hash the same bytes once between them.
//
// It imports only the standard library (internal/importrules checks it).
package selfbin
