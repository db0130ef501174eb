package clientcache

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ioswarm/mounts"
)

// kind is one kind of client cache: which mounts have it, and how to
// probe it. A new client (BeeGFS, WekaFS, dfuse) is one more entry here
// and one file with its probe.
type kind struct {
	kind    Kind
	outside bool // not the kernel page cache
	claims  func(m mounts.Mount) bool
	probe   func(ctx context.Context, e env, m mounts.Mount) *Cache
}

func kinds() []kind {
	return []kind{
		{kind: CephFuse, outside: true, claims: isType("fuse.ceph-fuse"), probe: probeCephFuse},
		{kind: GPFS, outside: true, claims: isType("gpfs"), probe: probeGPFS},
		// Lustre caches in the page cache, under its own limit.
		{kind: Lustre, claims: isType("lustre"), probe: probeLustre},
	}
}

func isType(t string) func(mounts.Mount) bool {
	return func(m mounts.Mount) bool { return m.Type == t }
}

// env is what probes read from the system: the /proc tree and the
// filesystems' tools. Tests replace both.
type env struct {
	proc string // "/proc"
	tool func(ctx context.Context, name string, args ...string) (string, error)
}

func systemEnv() env {
	return env{proc: "/proc", tool: runTool}
}

// runTool runs a filesystem's own command and returns its output.
func runTool(ctx context.Context, name string, args ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		// Filesystems install their tools outside PATH too.
		for _, d := range []string{"/usr/lpp/mmfs/bin", "/usr/sbin", "/sbin"} {
			if _, serr := os.Stat(filepath.Join(d, name)); serr == nil {
				path, err = filepath.Join(d, name), nil
				break
			}
		}
		if err != nil {
			return "", err
		}
	}
	out, err := exec.CommandContext(ctx, path, args...).Output()
	return strings.TrimSpace(string(out)), err
}
