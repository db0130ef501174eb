package coordinator

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/nodefacts"
	"ioswarm/result"
)

func jobOn(names ...string) *job {
	s := &Session{targets: hosts(names...)}
	j := &job{s: s, o: Workload{Dir: "/mnt/gv0/bench"}, threads: make([][]int, len(names))}
	for r := range names {
		j.threads[r] = []int{r}
	}
	return j
}

func TestSameFilesystemNamesTheOddNode(t *testing.T) {
	gluster := nodefacts.Facts{FSType: "fuse.glusterfs", FSSource: "nodeS:/gv0", MountPoint: "/mnt/gv0"}
	local := nodefacts.Facts{FSType: "ext4", FSSource: "/dev/vda1", MountPoint: "/"}
	j := jobOn("node1", "node2", "node3", "node4")
	facts := []nodefacts.Facts{gluster, gluster, local, gluster}
	err := j.sameFilesystem(facts)
	if err == nil || !usage.Is(err) {
		t.Fatalf("a node on ext4 among gluster clients: %v, want a usage error", err)
	}
	for _, want := range []string{"host node3 rank 2", "ext4 (/dev/vda1)", "fuse.glusterfs (nodeS:/gv0)", "same filesystem", "--allow-mixed-fs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	j.o.AllowMixedFS = true
	if err := j.sameFilesystem(facts); err != nil {
		t.Errorf("--allow-mixed-fs: %v", err)
	}
	j.o.AllowMixedFS = false
	// A node whose rank runs no thread in this job does not count.
	j.threads[2] = nil
	if err := j.sameFilesystem(facts); err != nil {
		t.Errorf("odd node without threads: %v", err)
	}
	// One volume through two server names is one filesystem.
	alias := gluster
	alias.FSSource = "10.77.0.9:/gv0"
	j.threads[2] = []int{2}
	if err := j.sameFilesystem([]nodefacts.Facts{gluster, alias, gluster, alias}); err != nil {
		t.Errorf("one volume, two server names: %v", err)
	}
}

func TestSameFilesystemRefusesReadOnly(t *testing.T) {
	ro := nodefacts.Facts{FSType: "fuse.glusterfs", FSSource: "nodeS:/gv0", MountPoint: "/mnt/gv0", ReadOnly: true}
	rw := ro
	rw.ReadOnly = false
	j := jobOn("node1", "node2")
	err := j.sameFilesystem([]nodefacts.Facts{rw, ro})
	if err == nil || !strings.Contains(err.Error(), "node2") || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("read-only mount on node2: %v", err)
	}
}

// With --allow-mixed-fs no node can read another's files: auto gives way,
// an explicit shift is refused.
func TestMixedFilesystemsKeepReadsLocal(t *testing.T) {
	gluster := nodefacts.Facts{FSType: "fuse.glusterfs", FSSource: "s:/gv0"}
	local := nodefacts.Facts{FSType: "ext4", FSSource: "/dev/vda1"}
	facts := []nodefacts.Facts{gluster, local}
	var log strings.Builder
	j := jobOn("node1", "node2")
	j.o.AllowMixedFS, j.o.ReadShift, j.s.o.Log = true, ReadShiftAuto, launcher.NewLineWriter(&log)
	j.res = &result.Job{Config: result.Config{ReadShift: 1}}
	j.shift, j.sources = 1, []int{1, 0}
	if err := j.sameFilesystem(facts); err != nil {
		t.Fatal(err)
	}
	if j.shift != 0 || j.sources[0] != 0 || j.sources[1] != 1 || j.res.Config.ReadShift != 0 || !strings.Contains(log.String(), "each reads its own") {
		t.Errorf("auto over mixed filesystems: shift %d sources %v config %d log %q", j.shift, j.sources, j.res.Config.ReadShift, log.String())
	}
	j.o.ReadShift, j.shift = 1, 1
	if err := j.sameFilesystem(facts); err == nil || !usage.Is(err) {
		t.Errorf("--read-shift 1 over mixed filesystems: %v", err)
	}
}

// One rank per kernel drops the page cache: ranks sharing a boot id are
// one kernel, ranks without one count by host.
func TestDroppersOnePerKernel(t *testing.T) {
	j := jobOn("node1", "node2", "node3", "node4", "node5")
	j.threads[4] = nil // no threads: never drops
	facts := []nodefacts.Facts{{BootID: "k1"}, {BootID: "k1"}, {BootID: "k2"}, {}, {BootID: "k3"}}
	got := j.droppers(facts)
	want := []bool{true, false, true, true, false}
	for r := range want {
		if got[r] != want[r] {
			t.Errorf("droppers %v, want %v", got, want)
			break
		}
	}
}

// An IOzone threadlist of 8 lines over 4 nodes makes 8 ranks of one thread,
// two to a node: the threads of each kernel get consecutive CPU slots, so
// no two threads of one node wait for their start on the same CPU, where
// every rank counting its own threads from 0 put them all on the first.
// Ranks with no boot id count by host; several threads in one rank take
// as many slots.
func TestCPUSlotsCountThreadsPerKernel(t *testing.T) {
	j := jobOn("node1", "node2", "node3", "node4", "node1", "node2", "node3", "node4")
	facts := make([]nodefacts.Facts, 8)
	for r := range facts {
		facts[r].BootID = fmt.Sprintf("k%d", r%4)
	}
	want := []int{0, 0, 0, 0, 1, 1, 1, 1}
	got, all := j.cpuSlots(facts)
	if !slices.Equal(got, want) || !slices.Equal(all, []int{2, 2, 2, 2, 2, 2, 2, 2}) {
		t.Errorf("8 one-thread ranks on 4 kernels: slots %v of %v, want %v of 2 each", got, all, want)
	}

	// The namespaced bed: four host names, one kernel.
	for r := range facts {
		facts[r].BootID = "bed"
	}
	want = []int{0, 1, 2, 3, 4, 5, 6, 7}
	got, all = j.cpuSlots(facts)
	if !slices.Equal(got, want) || !slices.Equal(all, []int{8, 8, 8, 8, 8, 8, 8, 8}) {
		t.Errorf("8 ranks on one kernel: slots %v of %v, want %v of 8 each", got, all, want)
	}

	j = jobOn("a", "b", "a")
	j.threads = [][]int{{0, 3}, {1, 4}, {2}}
	facts = []nodefacts.Facts{{}, {}, {}}
	want = []int{0, 0, 2}
	got, all = j.cpuSlots(facts)
	if !slices.Equal(got, want) || !slices.Equal(all, []int{3, 2, 3}) {
		t.Errorf("hosts a, b, a without boot ids, 2+2+1 threads: slots %v of %v, want %v of 3, 2, 3", got, all, want)
	}
}

// A node-local --dir puts every node on a filesystem of its own: the error
// says so rather than naming one node's disk as the others', and a long list
// of odd nodes folds into hostlist ranges.
func TestSameFilesystemAtScale(t *testing.T) {
	names := make([]string, 200)
	own := make([]nodefacts.Facts, 200)
	for i := range names {
		names[i] = fmt.Sprintf("node%d", i+1)
		own[i] = nodefacts.Facts{FSType: "tmpfs", FSSource: names[i] + "-tmp", MountPoint: "/tmp"}
	}
	j := jobOn(names...)
	err := j.sameFilesystem(own)
	if err == nil || !usage.Is(err) {
		t.Fatalf("200 node-local filesystems: %v, want a usage error", err)
	}
	msg := err.Error()
	for _, want := range []string{"own on each of the 200 nodes", "host node1 rank 0: tmpfs (node1-tmp) at /tmp", "host node2 rank 1: tmpfs (node2-tmp)", "node-local"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "other nodes'") || len(msg) > 400 {
		t.Errorf("error names one node's filesystem as the others' or runs long (%d bytes): %q", len(msg), msg)
	}

	// 150 nodes on the volume and 50 on local disks: the 49 after the
	// first are folded.
	gluster := nodefacts.Facts{FSType: "fuse.glusterfs", FSSource: "s:/gv0", MountPoint: "/mnt/gv0"}
	local := nodefacts.Facts{FSType: "ext4", FSSource: "/dev/vda1", MountPoint: "/"}
	mixed := make([]nodefacts.Facts, 200)
	for i := range mixed {
		mixed[i] = gluster
		if i >= 150 {
			mixed[i] = local
		}
	}
	err = j.sameFilesystem(mixed)
	if err == nil {
		t.Fatal("50 nodes on local disks among 150 gluster clients: no error")
	}
	for _, want := range []string{"host node151 rank 150", "ext4 (/dev/vda1)", "the other nodes' on fuse.glusterfs (s:/gv0)", "(so do node[152-200])"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
