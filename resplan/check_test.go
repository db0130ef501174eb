package resplan

import (
	"strings"
	"testing"

	"ioswarm/nodefacts"
	"ioswarm/settings"
)

func node(host string, rank, threads int, boot string, room nodefacts.Room, fsType, source string) Node {
	return Node{Host: host, Rank: rank, Threads: threads, Dir: "/data", Facts: nodefacts.Facts{
		BootID: boot, FSType: fsType, FSSource: source, MountPoint: "/data", BlockSize: 4096, Room: room}}
}

func roomOf(mem, free int64) nodefacts.Room {
	return nodefacts.Room{MemAvailable: mem, SpaceKnown: true, FreeBytes: free, Device: "0:42"}
}

// wantError checks that err is nil when want is empty, or holds every
// piece of want.
func wantError(t *testing.T, name string, err error, want ...string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: no error, want one naming %q", name, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", name, err, w)
		}
	}
}

func TestCheckMemory(t *testing.T) {
	uring := Job{FileSize: GiB, Block: MiB, Phases: []settings.Phase{"write", "read"}, Engine: "io_uring", IODepth: 4096}
	small := Job{FileSize: 64 * MiB, Block: MiB, Phases: []settings.Phase{"write", "read"}}
	plenty := roomOf(24*GiB, 1<<40)
	cases := []struct {
		name  string
		job   Job
		nodes []Node
		allow Allow
		want  []string
	}{
		{"64 threads at depth 4096 of 1 MiB on 24 GiB", uring,
			[]Node{node("n1", 0, 64, "a", plenty, "ext4", "/dev/vda1")}, Allow{},
			[]string{"host n1 rank 0", "256 GiB of memory", "64 threads × (1 + 4096 in flight) × 1.00 MiB", "24.0 GiB available", "--iodepth", "--ignore-memory"}},
		{"the override", uring, []Node{node("n1", 0, 64, "a", plenty, "ext4", "/dev/vda1")}, Allow{Memory: true}, nil},
		{"a small job fits", small, []Node{node("n1", 0, 4, "a", plenty, "ext4", "/dev/vda1")}, Allow{}, nil},
		{"unknown room is no refusal", uring, []Node{node("n1", 0, 64, "a", roomOf(0, 1<<40), "ext4", "/dev/vda1")}, Allow{}, nil},
		{"ranks on one kernel add up", small, []Node{
			node("n1", 0, 8, "a", roomOf(60*MiB, 1<<40), "ext4", "/dev/vda1"),
			node("n2", 1, 8, "a", roomOf(60*MiB, 1<<40), "ext4", "/dev/vda1")}, Allow{},
			[]string{"hosts n[1-2] (2 ranks sharing one kernel)", "60.0 MiB available"}},
		{"the same ranks on two kernels fit", small, []Node{
			node("n1", 0, 8, "a", roomOf(60*MiB, 1<<40), "ext4", "/dev/vda1"),
			node("n2", 1, 8, "b", roomOf(60*MiB, 1<<40), "ext4", "/dev/vda1")}, Allow{}, nil},
		{"a rank without threads needs nothing", uring, []Node{node("n1", 0, 0, "a", roomOf(MiB, 1<<40), "ext4", "/dev/vda1")}, Allow{}, nil},
	}
	for _, c := range cases {
		wantError(t, c.name, Check(c.job, c.nodes, c.allow), c.want...)
	}
}

func TestCheckDisk(t *testing.T) {
	job := Job{FileSize: 3 * GiB, Block: MiB, Phases: []settings.Phase{"write", "read"}}
	tenGiB := roomOf(64*GiB, 10*GiB)
	gluster := func(h string, r int) Node { return node(h, r, 1, h, tenGiB, "fuse.glusterfs", "nodeS:/gv0") }
	local := func(h string, r int) Node { return node(h, r, 1, h, tenGiB, "ext4", "/dev/vda1") }
	cases := []struct {
		name  string
		job   Job
		nodes []Node
		allow Allow
		want  []string
	}{
		{"a shared filesystem counts its free space once", job,
			[]Node{gluster("n1", 0), gluster("n2", 1), gluster("n3", 2), gluster("n4", 3)}, Allow{},
			[]string{"hosts n[1-4] (4 ranks on one filesystem)", "--dir /data", "fuse.glusterfs (nodeS:/gv0)", "10.0 GiB free", "12.0 GiB", "--ignore-space"}},
		{"node-local disks count each their own", job,
			[]Node{local("n1", 0), local("n2", 1), local("n3", 2), local("n4", 3)}, Allow{}, nil},
		{"one kernel's two tmpfs are two filesystems", job, []Node{
			node("n1", 0, 3, "k", nodefacts.Room{SpaceKnown: true, FreeBytes: 10 * GiB, Device: "0:40"}, "tmpfs", "tmpfs"),
			node("n2", 1, 3, "k", nodefacts.Room{SpaceKnown: true, FreeBytes: 10 * GiB, Device: "0:41"}, "tmpfs", "tmpfs")}, Allow{}, nil},
		{"a tmpfs too small", job, []Node{
			node("n1", 0, 4, "k", nodefacts.Room{SpaceKnown: true, FreeBytes: 10 * GiB, Device: "0:40"}, "tmpfs", "tmpfs")}, Allow{},
			[]string{"host n1 rank 0", "tmpfs", "10.0 GiB free", "writes 12.0 GiB"}},
		{"the override", job, []Node{node("n1", 0, 4, "a", tenGiB, "ext4", "/dev/vda1")}, Allow{Space: true}, nil},
		{"unknown space is no refusal", job, []Node{node("n1", 0, 4, "a", nodefacts.Room{}, "ext4", "/dev/vda1")}, Allow{}, nil},
		{"inodes", Job{Phases: []settings.Phase{"mdcreate"}, FilesPerThread: 1000}, []Node{
			node("n1", 0, 4, "a", nodefacts.Room{SpaceKnown: true, FreeBytes: GiB, FreeInodes: 500, TotalInodes: 9000, Device: "8:1"}, "ext4", "/dev/vda1")},
			Allow{}, []string{"host n1 rank 0", "500 inodes free (of 9000)", "4007 files", "--files-per-thread"}},
		{"no inode limit", Job{Phases: []settings.Phase{"mdcreate"}, FilesPerThread: 1000}, []Node{
			node("n1", 0, 4, "a", nodefacts.Room{SpaceKnown: true, FreeBytes: GiB, Device: "0:30"}, "btrfs", "/dev/vda2")}, Allow{}, nil},
	}
	for _, c := range cases {
		wantError(t, c.name, Check(c.job, c.nodes, c.allow), c.want...)
	}
}

func TestCheckMemoryAdviceFitsTheNeed(t *testing.T) {
	many := Job{FileSize: 4 * KiB, Block: 4 * KiB, RandBlock: 4 * KiB, Phases: []settings.Phase{"write"}}
	err := Check(many, []Node{node("n1", 0, 200000, "a", roomOf(20*GiB, 1<<40), "ext4", "/dev/vda1")}, Allow{})
	wantError(t, "200,000 threads of 4 KiB", err, "200000 threads", "use fewer threads per node (--ignore-memory")
	if err != nil && strings.Contains(err.Error(), "--block") {
		t.Errorf("thread state dominates, yet the advice is a smaller record: %v", err)
	}
}
