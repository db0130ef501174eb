package main

import (
	"os"

	"ioswarm/hostlist"
	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/selfbin"
)

// srunDetected reports whether ioswarm runs inside a Slurm allocation,
// where --launcher auto chooses srun (when no --hosts are given).
func srunDetected() bool { return launcher.InSlurmAllocation() }

// srunLauncher starts one rank on each node of the Slurm allocation this
// process runs in (SLURM_JOB_ID, SLURM_JOB_NODELIST), each as its own srun
// step. Threads go round-robin over the nodes in SLURM_JOB_NODELIST order.
func srunLauncher(o *launchOptions, adv string, log *launcher.LineWriter) (launcher.Launcher, []launcher.Target, error) {
	if o.Hosts != "" {
		return nil, nil, usage.Errorf("--hosts given with --launcher srun, which runs on the nodes of the Slurm " +
			"allocation (SLURM_JOB_NODELIST); drop --hosts, or use --launcher ssh")
	}
	alloc, err := launcher.AllocationFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, usage.Errorf("--launcher srun: %w", err)
	}
	self, err := selfbin.Self()
	if err != nil {
		return nil, nil, err
	}
	l := &launcher.Srun{Binary: self.Path, BinaryHash: self.Hash, RemoteBin: o.RemoteBin, Advertise: adv, Alloc: alloc, Log: log}
	log.Printf("srun: Slurm job %s, %d nodes: %s\n", alloc.JobID, len(alloc.Nodes), hostlist.Compress(alloc.Nodes))
	return l, alloc.Targets(), nil
}
