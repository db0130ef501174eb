package cephfs

import (
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/result"
)

// The table on a real CephFS: each command line a careful user
// would run reads either from the servers or with a cache warning on the
// phase, as root (drop_caches, the object cachers' counters readable) and
// as a user who is not root (neither). What the nodes got from the
// servers is read with the ceph CLI from every ceph-fuse's admin socket
// around each command, apart from ioswarm: a load-proof oracle.
func TestEveryReadIsStorageOrWarned(t *testing.T) {
	e := newEnv(t)
	for _, user := range []string{"", testUser} {
		name := "root"
		if user != "" {
			name = "unprivileged"
		}
		t.Run(name, func(t *testing.T) {
			dir := e.dirFor(t, user, "runs-"+name)
			for _, row := range rows() {
				t.Run(row.name, func(t *testing.T) {
					for _, cmd := range row.run(t, e, user, dir) {
						checkCommand(t, cmd, user == "")
					}
				})
			}
		})
	}
}

type row struct {
	name string
	run  func(t *testing.T, e *env, user, dir string) []command
}

func rows() []row {
	return []row{
		{"run", func(t *testing.T, e *env, user, dir string) []command {
			return []command{e.run(t, "run", e.runArgs(user, dir)...)}
		}},
		{"read-shift-0", func(t *testing.T, e *env, user, dir string) []command {
			c := e.run(t, "run --read-shift 0", append(e.runArgs(user, dir), "--read-shift", "0")...)
			if user == "" {
				// drop_caches ran on every node, which the old rule took
				// for a cold read: only the object cachers' counters tell.
				wantClientCacheWarning(t, c, "read")
			}
			return []command{c}
		}},
		{"iozone-two-commands", func(t *testing.T, e *env, user, dir string) []command {
			list := writeThreadlist(t, e, dir)
			iozone := func(test string) []string {
				return append([]string{"iozone", test, "-c", "-e", "-w", "-r", "1m", "-s", "32m", "-t", "4", "-+m", list}, e.sshFlags(user)...)
			}
			w := e.run(t, "iozone -i0 -w", iozone("-i0")...)
			r := e.run(t, "iozone -i1", iozone("-i1")...)
			if user == "" {
				// IOzone's placement: each child reads what it wrote.
				wantClientCacheWarning(t, r, "read")
			}
			e.removeOnCephFS(t, filepath.Join(dir, "ioswarm-"+w.job.JobID))
			return []command{w, r}
		}},
		{"reread", func(t *testing.T, e *env, user, dir string) []command {
			return []command{e.run(t, "run --phases write,read,reread", append(e.runArgs(user, dir), "--phases", "write,read,reread")...)}
		}},
		{"reuse-twice", func(t *testing.T, e *env, user, dir string) []command {
			kept := e.run(t, "run --phases write --keep", append(e.runArgs(user, dir), "--phases", "write", "--keep")...)
			reuse := append(e.runArgs(user, dir), "--reuse", kept.job.JobID, "--phases", "read")
			// --keep again, or the first reuse removes the files.
			first := e.run(t, "run --reuse --keep (first)", append(reuse, "--keep")...)
			second := e.run(t, "run --reuse (second)", reuse...)
			e.removeOnCephFS(t, filepath.Join(dir, "ioswarm-"+kept.job.JobID))
			return []command{kept, first, second}
		}},
	}
}

// runArgs are every run's flags: a thread per node, 32 MiB each.
func (e *env) runArgs(user, dir string) []string {
	return append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", dir,
		"--total", "128MiB", "--block", "1MiB", "--format", "json"}, e.sshFlags(user)...)
}

// checkCommand holds every read phase of a command to the rule: no cache
// warning means each node received from the servers at least
// storageShare of what it read. As root, every node's entry in
// client_cache_by_host must also carry the object cacher's counters, and
// never claim more from the servers than the oracle saw.
func checkCommand(t *testing.T, c command, root bool) {
	t.Helper()
	unwarned := map[string]int64{}
	for _, p := range c.job.Phases {
		if p.Name != "read" && p.Name != "reread" && p.Name != "randread" {
			continue
		}
		warned := cacheWarned(p)
		byHost := map[string]result.HostClientCache{}
		for _, h := range p.ClientCacheByHost {
			byHost[h.Host] = h
		}
		for host, read := range readBy(p) {
			if !warned {
				unwarned[host] += read
			}
			// The phase's verdict says storage only where the servers sent
			// what the node read.
			if p.CacheVerdict == result.VerdictStorage && float64(c.fetched[host]) < storageShare*float64(read) {
				t.Errorf("%s %s: cache verdict storage, but %s's ceph-fuse received %d of the %d bytes it read from the servers",
					c.label, p.Name, host, c.fetched[host], read)
			}
			h, ok := byHost[host]
			if !ok || h.Kind != "ceph-fuse object cacher" {
				t.Errorf("%s %s: %s's client cache is %+v, want a ceph-fuse object cacher entry", c.label, p.Name, host, h)
				continue
			}
			if root {
				checkCounted(t, c, p.Name, h, read, warned)
			}
		}
	}
	for host, read := range unwarned {
		if got := c.fetched[host]; float64(got) < storageShare*float64(read) {
			t.Errorf("%s: %s read %d bytes in phases with no cache warning, but its ceph-fuse received only %d from the servers",
				c.label, host, read, got)
		}
	}
}

func checkCounted(t *testing.T, c command, phase string, h result.HostClientCache, read int64, warned bool) {
	t.Helper()
	if !h.Counters || h.Size != ocSize || h.ReadBytes != read {
		t.Errorf("%s %s: %s's entry %+v: want counters, size %d, read_bytes %d", c.label, phase, h.Host, h, int64(ocSize), read)
	}
	if h.FetchedBytes > c.fetched[h.Host] {
		t.Errorf("%s %s: %s reports %d bytes from the servers, more than its ceph-fuse received over the whole command (%d)",
			c.label, phase, h.Host, h.FetchedBytes, c.fetched[h.Host])
	}
	if !warned && float64(h.FetchedBytes) < storageShare*float64(read) {
		t.Errorf("%s %s: %s got %d of its %d bytes from the servers, and the phase has no cache warning",
			c.label, phase, h.Host, h.FetchedBytes, read)
	}
}

// wantClientCacheWarning fails unless the named phase carries the object
// cacher's warning.
func wantClientCacheWarning(t *testing.T, c command, phase string) {
	t.Helper()
	for _, p := range c.job.Phases {
		if p.Name != phase {
			continue
		}
		for _, w := range p.Warnings {
			if strings.Contains(w, "did not come from the servers") {
				return
			}
		}
		t.Errorf("%s %s: no client-cache warning; warnings %q", c.label, phase, p.Warnings)
		return
	}
	t.Errorf("%s: no %s phase", c.label, phase)
}
