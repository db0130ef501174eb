package launcher

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"ioswarm/hostlist"
	"ioswarm/mounts"
	"ioswarm/rankproto"
	"ioswarm/selfbin"
)

// place decides which binary the nodes run: --remote-bin as given; this
// binary in place when it lies on a filesystem every node mounts; else a
// copy broadcast with sbcast to node-local storage.
func (l *Srun) place(ctx context.Context, targets []Target) (string, error) {
	if l.RemoteBin != "" {
		l.Log.Printf("srun: ranks run %s (--remote-bin) on every node\n", l.RemoteBin)
		return l.RemoteBin, nil
	}
	if !slices.ContainsFunc(targets, func(t Target) bool { return t.Exe == "" }) {
		return "", nil // every target names its own binary
	}
	fs := mounts.FSType(filepath.Dir(l.Binary))
	if sharedFS(fs) {
		l.Log.Printf("srun: ranks run %s in place (a %s filesystem, seen by every node)\n", l.Binary, fs)
		return l.Binary, nil
	}
	hash, err := BinaryHash(l.Binary, l.BinaryHash)
	if err != nil {
		return "", err
	}
	dst := bcastPath(l.BcastDir, l.Alloc.JobID, hash)
	l.mu.Lock()
	l.bcast = dst // a failed sbcast may have written some nodes: Close removes those too
	l.mu.Unlock()
	if err := l.guard(ctx, targets, dst); err != nil {
		return "", err
	}
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, l.Tools.sbcast(), sbcastArgs(l.Binary, dst)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = l.grace()
	var last lastLines
	cmd.Stdout, cmd.Stderr = &last, &last
	if err := cmd.Run(); err != nil {
		return "", l.bcastError(targets, dst, stepError("sbcast", err, last.String()), last.String())
	}
	l.Log.Printf("srun: sbcast put %s on the %d nodes of job %s at %s in %.2f s (it lies on %s, which not every node may mount; --remote-bin PATH avoids the copy)\n",
		l.Binary, len(l.Alloc.Nodes), l.Alloc.JobID, dst, time.Since(t0).Seconds(), fs)
	return dst, nil
}

// bcastError names the nodes sbcast failed on. When they all run ranks the
// error is per target (HostErrors), as preflight reports it; a failure on
// a node that runs no rank, or on none that sbcast names, concerns the
// whole run.
func (l *Srun) bcastError(targets []Target, dst string, err error, stderr string) error {
	nodes := failedNodes(stderr)
	for _, n := range nodes {
		l.markDown(n, "sbcast could not reach it")
	}
	var herrs HostErrors
	named := map[string]bool{}
	for _, t := range targets {
		if slices.Contains(nodes, t.Host) {
			named[t.Host] = true
			herrs = append(herrs, &HostError{Host: t.Host, Rank: t.Rank,
				Err: fmt.Errorf("sbcast of %s to %s: %w", l.Binary, dst, err)})
		}
	}
	if len(nodes) > 0 && len(named) == len(nodes) {
		return herrs
	}
	where := "the job's nodes"
	if len(nodes) > 0 {
		where = hostlist.Compress(nodes)
	}
	return fmt.Errorf("sbcast of %s to %s on %s: %w (pass --remote-bin PATH to use a binary already on every node)",
		l.Binary, dst, where, err)
}

// unplace removes the sbcast copy from every node that may hold it, in one
// step; nodes known to be down are skipped, since a step there would only
// wait for Slurm to give up on them.
func (l *Srun) unplace(ctx context.Context, file string) error {
	var nodes []string
	for _, n := range l.Alloc.Nodes {
		if _, down := l.downReason(n); !down && !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	cmd := exec.CommandContext(ctx, l.Tools.srun(), removeArgs(nodes, file)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = l.grace()
	var last lastLines
	cmd.Stdout, cmd.Stderr = &last, &last
	if err := cmd.Run(); err != nil {
		err = fmt.Errorf("removing %s from %s: %w", file, hostlist.Compress(nodes), stepError("srun", err, last.String()))
		l.Log.Printf("warning: srun: %v\n", err)
		return err
	}
	return nil
}

// BinaryHash is known, the hash the caller found for the binary at path,
// or when it gave none the file's own.
func BinaryHash(path, known string) (string, error) {
	if known != "" {
		return known, nil
	}
	hash, err := selfbin.FileHash(path)
	if err != nil {
		return "", fmt.Errorf("reading own binary: %w", err)
	}
	return hash, nil
}

// sharedFS reports filesystem types that are, as a rule, mounted on every
// node of a cluster at the same path: network and parallel filesystems.
// An NFS export might be mounted on the login node only, so a binary there
// is run in place only when the user has not said otherwise (--remote-bin);
// a wrong guess shows at once as a rank that cannot start.
func sharedFS(fstype string) bool {
	switch fstype {
	case "nfs", "nfs4", "lustre", "gpfs", "beegfs", "fuse.beegfs", "ceph", "fuse.ceph-fuse",
		"panfs", "wekafs", "glusterfs", "fuse.glusterfs", "cifs", "smb3", "orangefs", "pvfs2",
		"afs", "dvs", "gfs2", "ocfs2", "fuse.juicefs", "fuse.lizardfs", "fuse.moosefs":
		return true
	}
	return false
}

// copyArgs are the rank's arguments that let it remove the sbcast copy
// exe when a signal or the loss of this process ends it (scancel, a time
// limit), which ends this process too before its Close could remove the
// copy; none when exe is not that copy.
func (l *Srun) copyArgs(exe string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bcast == "" || exe != l.bcast {
		return nil
	}
	return []string{"--" + rankproto.FlagBcastCopy, exe}
}
