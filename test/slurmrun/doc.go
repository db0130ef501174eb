// Package slurmrun runs the real ioswarm binary inside a real Slurm
// cluster (test/slurm): `ioswarm run` in a batch job and under salloc with
// no host list, binary placement by sbcast and by --remote-bin, and a node
// whose slurmd dies before the run. It holds tests only; they need root
// and skip without it.
package slurmrun
