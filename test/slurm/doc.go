// Package slurm starts a real Slurm cluster on one machine for tests: one
// munged, a slurmctld on a "login" node and N slurmd nodes, each in its own
// network, UTS and mount namespace, as built by slurm.sh next to this file.
// Tests submit jobs from the login node with Login, Sbatch and WaitJob, run
// commands on a node with Exec and make a node die with KillNode.
//
// Every node has a private tmpfs /tmp; the rest of the filesystem is shared
// like a parallel filesystem. Anything a job must see on every node (a
// binary under test, job scripts, outputs) belongs under Cluster.Shared,
// never under /tmp or t.TempDir().
//
// The package needs root, unshare, nsenter and ip netns; Start skips the
// test when they are missing. It must not import any ioswarm package: the
// cluster tests of every package import it.
package slurm
