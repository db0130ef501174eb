package coordinator

import (
	"context"
	"fmt"

	"ioswarm/barrier"
	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/units"
	"ioswarm/wire"
)

// setup sends each rank its share, checks every node before anything is
// written anywhere, then creates the job directories.
func (j *job) setup(ctx context.Context) error {
	facts, err := j.askFacts(ctx)
	if err != nil {
		return err
	}
	if err := j.useFacts(facts); err != nil {
		return err
	}
	if j.o.Reuse != "" {
		if err := j.useKept(ctx); err != nil {
			return err
		}
	}
	if err := j.checkPlan(facts); err != nil {
		return err
	}
	replies, err := callAll[wire.SetupReply](ctx, j.s.coord, wire.KindSetup, "setup", func(r int) any {
		t := j.s.targets[r]
		return wire.Setup{Job: j.rankJob(), Rank: r, Host: t.Host, Dir: j.dirOf(t),
			Threads: j.threads[r], Sources: j.sourcesOf(r), DropNode: j.dropper[r], CPUSlot: j.cpuSlot[r],
			KernelThreads: j.kernelThreads[r], MemCap: j.memCap(r)}
	})
	if err != nil {
		return fmt.Errorf("checking nodes: %w", err)
	}
	if err := j.noteHosts(replies, facts); err != nil {
		return err
	}
	j.notePlan()
	if _, err := j.s.coord.Call(ctx, wire.KindCreate, same(wire.Empty{})); err != nil {
		return fmt.Errorf("creating job directory: %w", err)
	}
	return j.testShared(ctx)
}

// useFacts checks that every node measures one filesystem and keeps what
// the nodes' facts decide: who drops each kernel's cache, the client
// caches, and --total auto's size.
func (j *job) useFacts(facts []nodefacts.Facts) error {
	if err := j.sameFilesystem(facts); err != nil {
		return err
	}
	j.facts = facts
	j.dropper = j.droppers(facts)
	j.cpuSlot, j.kernelThreads = j.cpuSlots(facts)
	j.noteKernels(facts)
	j.initColdReads()
	j.clientCache, j.kernels = j.sumClientCache(facts)
	if j.o.TotalAuto {
		return j.sizeAuto()
	}
	return nil
}

// useKept finds the job --reuse names and takes its files: they hold the
// kept job's pattern, so they are read and verified with its seed.
func (j *job) useKept(ctx context.Context) error {
	m, err := j.findKept(ctx)
	if err != nil {
		return err
	}
	j.filesOf, j.seed, j.keptThreads, j.kept = m.JobID, m.Seed, m.Threads, m
	j.applyKept(m)
	j.res.Config.ReusedJob = m.JobID
	j.s.o.Log.Printf("--reuse: reading the files job %s kept in %s\n", m.JobID, wire.JobDir(j.dirOf(j.s.targets[0]), m.JobID))
	return nil
}

// noteHosts refuses a node that cannot run the job as asked, passes on
// the nodes' warnings, and records every working rank's host.
func (j *job) noteHosts(replies []wire.SetupReply, facts []nodefacts.Facts) error {
	for r, s := range replies {
		t := j.s.targets[r]
		if len(j.threads[r]) == 0 {
			continue
		}
		if s.NoUring != "" {
			return usagef("host %s rank %d: --engine io_uring: %s", t.Host, r, s.NoUring)
		}
		if j.o.DropCaches == settings.DropOn && !s.CanDrop {
			return &barrier.RankError{Host: t.Host, Rank: r,
				Msg: "--drop-caches on, but this node's page cache cannot be dropped (not root)"}
		}
		for _, w := range s.Warnings {
			j.warn(fmt.Sprintf("host %s rank %d: %s", t.Host, r, w))
		}
		m, f := j.members[r], facts[r]
		j.res.Hosts = append(j.res.Hosts, result.Host{
			Host: t.Host, Rank: r, Threads: len(j.threads[r]), Kernel: s.Kernel, Arch: s.Arch,
			FSType: s.FSType, Dir: j.dirOf(t), AbsDir: f.AbsDir, ClockOffsetNS: m.ClockOffset, ClockErrorNS: m.ClockError,
			MemTotal: f.MemTotal, CacheBytes: f.CacheBytes, CacheNotes: f.CacheNotes, BootID: f.BootID,
			MountPoint: f.MountPoint, FSSource: f.FSSource, MountOptions: f.MountOptions,
			FSBlockSize: f.BlockSize, Stripe: f.Stripe, ClientCache: hostClientCache(f.ClientCache),
			FreePageReporting: f.FreePageReporting,
		})
	}
	if w := j.reportingWarning(facts); w != "" {
		j.warnOncePerSession(w)
	}
	return nil
}

// sourcesOf lists, for each of rank r's threads, whose file it reads.
func (j *job) sourcesOf(r int) []int {
	src := make([]int, len(j.threads[r]))
	for i, t := range j.threads[r] {
		src[i] = j.sources[t]
	}
	return src
}

// sizeAuto settles --total auto from what the nodes can cache.
func (j *job) sizeAuto() error {
	total := autoTotal(j.clientCache, j.o.ServerCache, j.o.Threads, j.o.Block, j.o.RandBlock)
	j.o.Total, j.o.FileSize = total, 0
	if err := j.o.validateAggregate(); err != nil {
		return err
	}
	j.o.settleAggregate()
	j.res.Config.Total, j.res.Config.FileSize = j.o.Total, j.o.FileSize
	j.s.o.Log.Printf("--total auto: %s, that is --total %s (2 × (clients %s on %d node(s) + servers %s), in whole records)\n",
		units.FormatBytes(total), units.FormatSize(total), units.FormatBytes(j.clientCache), j.kernels, units.FormatBytes(j.o.ServerCache))
	return nil
}
