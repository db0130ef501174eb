package nodefacts

import (
	"context"
	"os"
	"slices"
	"testing"
)

func TestMemTotal(t *testing.T) {
	in := "MemTotal:       24563708 kB\nMemFree:        1000 kB\n"
	if got := memTotal(in); got != 24563708<<10 {
		t.Errorf("memTotal = %d", got)
	}
	if got := memTotal("MemFree: 1 kB\n"); got != 0 {
		t.Errorf("no MemTotal line: %d", got)
	}
}

func TestGPFSPagepoolParser(t *testing.T) {
	if got := pagepool("pagepool 32G\npagepool 96G [nsdNodes]\n"); got != 96<<30 {
		t.Errorf("pagepool: %d", got)
	}
	if got := pagepool("pagepool 1073741824\n"); got != 1<<30 {
		t.Errorf("pagepool in bytes: %d", got)
	}
	if got := pagepool("pagepool x\n"); got != 0 {
		t.Errorf("garbage: %d", got)
	}
}

func TestGatherOnThisMachine(t *testing.T) {
	dir := t.TempDir()
	f := Gather(context.Background(), dir)
	if f.MemTotal <= 0 || f.CacheBytes != f.MemTotal {
		t.Errorf("memory: total %d cache %d", f.MemTotal, f.CacheBytes)
	}
	if f.BootID == "" {
		t.Error("no boot id")
	}
	if f.FSType == "" || f.FSType == "unknown" || f.MountPoint == "" || f.BlockSize <= 0 {
		t.Errorf("filesystem facts: %+v", f)
	}
	if _, err := os.Stat(f.MountPoint); err != nil {
		t.Errorf("mount point %q: %v", f.MountPoint, err)
	}
}

func TestFSKey(t *testing.T) {
	cases := []struct {
		f    Facts
		want string
	}{
		{Facts{FSType: "fuse.glusterfs", FSSource: "nodeS:/gv0"}, "fuse.glusterfs /gv0"},
		{Facts{FSType: "fuse.glusterfs", FSSource: "10.77.1.9:gv0/"}, "fuse.glusterfs gv0"},
		{Facts{FSType: "lustre", FSSource: "10.0.0.1@o2ib:/scratch"}, "lustre /scratch"},
		{Facts{FSType: "ext4", FSSource: "/dev/sda1"}, "ext4"},
		{Facts{FSType: "gpfs", FSSource: "fs1"}, "gpfs fs1"},
		{Facts{FSType: "nfs4", FSSource: "srv:/"}, "nfs4 /"},
	}
	for _, c := range cases {
		if got := c.f.FSKey(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}

func TestOddFilesystems(t *testing.T) {
	g, e := "fuse.glusterfs /gv0", "ext4"
	cases := []struct {
		keys   []string
		common string
		odd    []int
	}{
		{[]string{g, g, e, g}, g, []int{2}},
		{[]string{e, g, g}, g, []int{0}},
		{[]string{g, e}, g, []int{1}}, // a tie: the first node's
		{[]string{g, g}, g, nil},
		{nil, "", nil},
	}
	for _, c := range cases {
		common, odd := OddFilesystems(c.keys)
		if common != c.common || !slices.Equal(odd, c.odd) {
			t.Errorf("%v: %q %v, want %q %v", c.keys, common, odd, c.common, c.odd)
		}
	}
}

func TestClientCacheCountsEachKernelOnce(t *testing.T) {
	facts := []Facts{
		{BootID: "a", CacheBytes: 10}, {BootID: "a", CacheBytes: 12}, // one kernel
		{BootID: "b", CacheBytes: 100},
		{CacheBytes: 5}, {CacheBytes: 5}, // unknown: each counts
	}
	b, k := ClientCache(facts)
	if b != 12+100+5+5 || k != 4 {
		t.Errorf("ClientCache = %d over %d kernels, want 122 over 4", b, k)
	}
}
