// Package launcher starts one rank process per node: as child processes of
// this one (local), over SSH after copying this binary to the node (the
// sshlaunch package below this one), or as one srun job step per node
// inside a Slurm allocation (srun).
//
// What a launcher says to a rank process, and the SSH launcher to the
// scripts its sessions run, is rankproto's protocol: a launcher starts
// `<binary> rank ARGS`, feeds what the caller gives it (the job secret and
// the coordinator's address) on the process's standard input (never argv
// or environment, which other users can read), keeps that input open for
// the life of the process (a rank treats its end as the coordinator's
// death), and forwards each rank's standard error line by line. It knows
// nothing of the barrier protocol the ranks then speak with the
// coordinator: it must not import barrier, rank or the coordinator.
package launcher
