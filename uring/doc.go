// Package uring is io_uring through the raw system calls: one ring, its
// submission and completion queues mapped once, registered buffers, and
// the words a user needs when the kernel refuses it (Available).
//
// It imports only the standard library and golang.org/x/sys/unix (no
// cgo, so the binary stays static), and nothing of the project's.
package uring
