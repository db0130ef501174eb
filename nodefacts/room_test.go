package nodefacts

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestMeminfoField(t *testing.T) {
	in := "MemTotal:       24563708 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n"
	if got := meminfoField(in, "MemAvailable:"); got != 2048<<10 {
		t.Errorf("MemAvailable = %d, want %d", got, 2048<<10)
	}
	if got := meminfoField(in, "SwapFree:"); got != 0 {
		t.Errorf("a missing line gives %d", got)
	}
}

func TestRoomOnThisMachine(t *testing.T) {
	r := gatherRoom(t.TempDir())
	if r.MemAvailable <= 0 || !r.SpaceKnown || r.FreeBytes <= 0 || r.Device == "" {
		t.Errorf("room of a temporary directory: %+v", r)
	}
}

func TestMemAvailableHook(t *testing.T) {
	t.Setenv(MemAvailableEnv, strconv.Itoa(3<<20))
	r := gatherRoom(t.TempDir())
	if r.MemAvailable != 3<<20 || r.MemLimitNote == "" {
		t.Errorf("with %s set: %+v", MemAvailableEnv, r)
	}
}

// writeCgroup makes a cgroup directory under root with its limit and
// usage files.
func writeCgroup(t *testing.T, dir, limitFile, limit, usageFile, usage string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{limitFile: limit, usageFile: usage} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCgroupRoom(t *testing.T) {
	// v2: the step's own cgroup is unlimited, the job's above it is not.
	root := t.TempDir()
	writeCgroup(t, filepath.Join(root, "job_7"), "memory.max", "1073741824", "memory.current", "268435456")
	writeCgroup(t, filepath.Join(root, "job_7", "step_0"), "memory.max", "max", "memory.current", "1048576")
	room, note := cgroupRoomIn("0::/job_7/step_0\n", root)
	if room != 768<<20 || !strings.Contains(note, "/job_7") {
		t.Errorf("v2: room %d (%s), want 768 MiB from /job_7", room, note)
	}
	// v1: the memory controller's own hierarchy; "unlimited" is a huge number.
	root = t.TempDir()
	writeCgroup(t, filepath.Join(root, "memory", "a"), "memory.limit_in_bytes", "9223372036854771712", "memory.usage_in_bytes", "5")
	if room, _ := cgroupRoomIn("4:memory:/a\n1:cpu:/\n", root); room != 0 {
		t.Errorf("v1 unlimited: room %d, want none", room)
	}
	writeCgroup(t, filepath.Join(root, "memory", "b"), "memory.limit_in_bytes", "2097152", "memory.usage_in_bytes", "1048576")
	if room, _ := cgroupRoomIn("4:cpuacct,memory:/b\n", root); room != 1<<20 {
		t.Errorf("v1 limited: room %d, want 1 MiB", room)
	}
	if room, _ := cgroupRoomIn("garbage\n", root); room != 0 {
		t.Errorf("garbage: room %d", room)
	}
}

// Inode counts that cannot be counts are no limit: CephFS's all-ones
// free count over a total of the files it holds, or free above total.
func TestInodesThatAreNoLimit(t *testing.T) {
	for _, c := range []struct {
		free, total      uint64
		wantFree, wantOf int64
	}{
		{500, 9000, 500, 9000},
		{^uint64(0), 2, 0, 0},
		{10, 5, 0, 0},
		{0, 0, 0, 0},
		{0, 100, 0, 100},
	} {
		if f, n := inodes(c.free, c.total); f != c.wantFree || n != c.wantOf {
			t.Errorf("inodes(%d, %d) = %d, %d; want %d, %d", c.free, c.total, f, n, c.wantFree, c.wantOf)
		}
	}
}
