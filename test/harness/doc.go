// Package harness holds what the integration tests share: a build of the
// real ioswarm binary, running it and waiting for it with a limit, the
// processes on this machine that run it, and the files a run leaves or
// writes. Every helper that can fail takes a testing.TB and fails the test
// with what went wrong.
//
// How the binary is started (directly, in a namespace, on a Slurm login
// node) stays with each test package: harness takes a prepared *exec.Cmd.
// It must not import test/cluster or test/slurm, nor any package of the
// product other than report and result, which read result files as users
// do.
package harness
