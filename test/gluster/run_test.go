package gluster

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"ioswarm/test/cluster"
)

// As root on four nodes with the volume mounted: every node reports the
// FUSE mount, the caches are dropped before the read phases and the reads
// find nothing resident, every thread moves its whole file, and the job's
// files are gone from the bricks afterwards.
func TestRootRunOnGluster(t *testing.T) {
	e := newEnv(t, 4, cluster.Options{})
	dir := e.v.Mkdir(t, "")
	j := e.mustRun(t, "", dir)
	checkGlusterHosts(t, j, e.c.Nodes)
	checkThreadBytes(t, j)
	for _, p := range j.readPhases() {
		if p.CacheDrop != "drop_caches" {
			t.Errorf("%s: cache_drop %q, want drop_caches (root may write /proc/sys/vm/drop_caches)", p.Name, p.CacheDrop)
		}
	}
	// After drop_caches nothing of the files is in memory, client or
	// server side: one kernel holds both here, and root drops it whole.
	if r := j.phase(t, "read").ResidentFraction; r > 0.05 {
		t.Errorf("read: resident_fraction %.3f after drop_caches, want about 0", r)
	}
	e.checkNoJobFiles(t, dir)
}

// As a user who is not root: drop_caches is closed to it, so the ranks
// evict the files with fadvise; the run completes and cleans up.
func TestUnprivilegedRunOnGluster(t *testing.T) {
	e := newEnv(t, 3, cluster.Options{User: testUser})
	dir := e.v.Mkdir(t, e.c.User)
	j := e.mustRun(t, e.c.User, dir)
	checkGlusterHosts(t, j, e.c.Nodes)
	checkThreadBytes(t, j)
	for _, p := range j.readPhases() {
		if p.CacheDrop != "fadvise" {
			t.Errorf("%s: cache_drop %q, want fadvise (the user cannot drop caches)", p.Name, p.CacheDrop)
		}
	}
	e.checkNoJobFiles(t, dir)
	// The ranks ran as the user: the binary was copied into its homes.
	for _, node := range e.c.Nodes {
		cache := filepath.Join(e.c.Dir, "userhome", node, ".cache", "ioswarm")
		if st, err := os.Stat(cache); err != nil || st.Sys().(*syscall.Stat_t).Uid == 0 {
			t.Errorf("%s: no binary cache owned by %s in its home (%v)", node, e.c.User, err)
		}
	}
}
