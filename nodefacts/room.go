package nodefacts

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// MemAvailableEnv names a test hook: when set (to a byte count), a node
// reports it as its available memory instead of what /proc/meminfo says,
// so that a test can make the resource plan refuse a job on a machine
// with memory to spare. Only the suite sets it; it is read where the
// facts are gathered, on the node.
const MemAvailableEnv = "IOSWARM_TEST_MEM_AVAILABLE"

// Room is what a node has to spare for a job: memory, and space and
// inodes on the filesystem under the benchmark directory. Sizes are
// bytes; Known fields say whether the figure could be read at all.
type Room struct {
	MemAvailable int64 `json:"mem_available,omitempty"`
	// MemLimitNote says what bounded MemAvailable when it was not the
	// kernel's figure (a cgroup's limit, the test hook).
	MemLimitNote string `json:"mem_limit_note,omitempty"`
	SpaceKnown   bool   `json:"space_known,omitempty"`
	FreeBytes    int64  `json:"free_bytes,omitempty"`
	// FreeInodes is 0 with TotalInodes 0 where the filesystem has no
	// fixed number of inodes (btrfs, some network filesystems).
	FreeInodes  int64 `json:"free_inodes,omitempty"`
	TotalInodes int64 `json:"total_inodes,omitempty"`
	// Device is the directory's st_dev ("major:minor"): within one kernel
	// it tells apart node-local filesystems that look alike from the mount
	// table (each namespace's own tmpfs at /tmp).
	Device string `json:"device,omitempty"`
}

// gatherRoom reads the node's room for a job in dir. What cannot be read
// stays unknown.
func gatherRoom(dir string) Room {
	var r Room
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		r.MemAvailable = meminfoField(string(data), "MemAvailable:")
	}
	if limit, note := cgroupRoom(); limit > 0 && (r.MemAvailable == 0 || limit < r.MemAvailable) {
		r.MemAvailable, r.MemLimitNote = limit, note
	}
	if v := os.Getenv(MemAvailableEnv); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			r.MemAvailable, r.MemLimitNote = n, MemAvailableEnv+" (test hook)"
		}
	}
	var sfs unix.Statfs_t
	if unix.Statfs(dir, &sfs) == nil {
		unit := sfs.Frsize
		if unit <= 0 {
			unit = sfs.Bsize
		}
		r.SpaceKnown = true
		r.FreeBytes = int64(sfs.Bavail) * unit
		r.FreeInodes, r.TotalInodes = inodes(sfs.Ffree, sfs.Files)
	}
	var st unix.Stat_t
	if unix.Stat(dir, &st) == nil {
		r.Device = fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	}
	return r
}

// inodes is what statfs says of a filesystem's inodes, free and in all,
// or 0 and 0 (no fixed number) where it cannot be a count: CephFS
// reports the files it holds as the total and all ones (-1) as free,
// and a free count above the total is no limit either.
func inodes(free, total uint64) (int64, int64) {
	if total == 0 || free > total || free >= 1<<63 || total >= 1<<63 {
		return 0, 0
	}
	return int64(free), int64(total)
}

// meminfoField reads one "Name:  123 kB" line of /proc/meminfo in bytes.
func meminfoField(meminfo, name string) int64 {
	sc := bufio.NewScanner(strings.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == name {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0
			}
			if len(f) >= 3 && f[2] == "kB" {
				n <<= 10
			}
			return n
		}
	}
	return 0
}

// cgroupRoom is what this process's memory cgroups still let it use:
// the least, over its cgroup and every one above it, of limit less usage
// (a batch system's job cgroup kills past its limit however much the node
// has free, and the limit is often set on the job, above the step's
// own), or 0 when none sets a limit.
func cgroupRoom() (int64, string) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, ""
	}
	return cgroupRoomIn(string(data), "/sys/fs/cgroup")
}

// cgroupRoomIn is cgroupRoom for a /proc/self/cgroup text and a cgroup
// filesystem mounted at root (v2 at root, v1's memory controller at
// root/memory).
func cgroupRoomIn(procCgroup, root string) (int64, string) {
	var best int64
	var note string
	for _, line := range strings.Split(procCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var base, limitFile, usageFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			base, limitFile, usageFile = root, "memory.max", "memory.current"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			base, limitFile, usageFile = filepath.Join(root, "memory"), "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for p := filepath.Clean("/" + parts[2]); ; p = filepath.Dir(p) {
			dir := filepath.Join(base, p)
			limit, lok := readNumber(filepath.Join(dir, limitFile))
			used, uok := readNumber(filepath.Join(dir, usageFile))
			// An unlimited v1 cgroup says so with a huge number, v2 with "max".
			if lok && uok && limit < 1<<60 {
				if room := max(limit-used, 1); best == 0 || room < best {
					best, note = room, fmt.Sprintf("memory cgroup %s: limit %d, in use %d", p, limit, used)
				}
			}
			if p == "/" {
				break
			}
		}
	}
	return best, note
}

// readNumber reads a cgroup file holding one number ("max" is none).
func readNumber(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil
}
