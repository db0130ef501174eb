package nodefacts

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/clientcache"
	"ioswarm/mounts"
	"ioswarm/units"
)

// Facts are one node's answers. Sizes are bytes; zero means unknown.
type Facts struct {
	MemTotal int64  `json:"mem_total"`
	BootID   string `json:"boot_id"`
	// CacheBytes is how much of the benchmark's data this node's client
	// caches could hold: MemTotal, or Lustre's max_cached_mb where that is
	// smaller. (GPFS caches in its pagepool, which is part of MemTotal.)
	CacheBytes   int64    `json:"cache_bytes"`
	CacheNotes   []string `json:"cache_notes,omitempty"`
	MountPoint   string   `json:"mount_point"`
	FSType       string   `json:"fs_type"`
	FSSource     string   `json:"fs_source"`
	MountOptions string   `json:"mount_options"`
	ReadOnly     bool     `json:"read_only,omitempty"`
	BlockSize    int64    `json:"fs_block_size"`
	Stripe       string   `json:"stripe,omitempty"`  // Lustre: lfs getstripe -d of the directory
	AbsDir       string   `json:"abs_dir,omitempty"` // the benchmark directory as an absolute path
	// Room is what the node has to spare for the job (the resource plan).
	Room
	// ClientCache is the mount's client cache: the page cache, or one
	// outside it (ceph-fuse's object cacher, GPFS's pagepool) with its size.
	ClientCache clientcache.Info `json:"client_cache"`
	// FreePageReporting: the node is a virtual machine that hands freed
	// memory back to its hypervisor (see freePageReporting).
	FreePageReporting bool `json:"free_page_reporting,omitempty"`
}

// toolTimeout bounds each filesystem tool run: a hung lctl or mmlsconfig
// must not hold the job's setup.
const toolTimeout = 3 * time.Second

// Gather reads this node's facts for benchmark directory dir. It never
// fails: what cannot be read stays zero.
func Gather(ctx context.Context, dir string) Facts {
	var f Facts
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		f.MemTotal = memTotal(string(data))
	}
	if data, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		f.BootID = strings.TrimSpace(string(data))
	}
	if abs, err := filepath.Abs(dir); err == nil {
		f.AbsDir = abs
	}
	m := mounts.At(dir)
	f.MountPoint, f.FSType, f.FSSource, f.MountOptions, f.ReadOnly = m.Point, m.Type, m.Source, m.Options, m.ReadOnly()
	var sfs unix.Statfs_t
	if unix.Statfs(dir, &sfs) == nil {
		f.BlockSize = sfs.Bsize
	}
	f.Room = gatherRoom(dir)
	f.CacheBytes = f.MemTotal
	f.ClientCache = clientcache.Probe(ctx, dir).Info()
	f.FreePageReporting = freePageReporting("/sys")
	switch {
	case f.FSType == "lustre":
		// The client-cache probe has read llite.*.max_cached_mb already.
		if c := f.ClientCache; c.Kind == clientcache.Lustre && c.Size > 0 {
			f.CacheNotes = append(f.CacheNotes, fmt.Sprintf("lustre max_cached_mb %d", c.Size>>20))
			if f.CacheBytes == 0 || c.Size < f.CacheBytes {
				f.CacheBytes = c.Size
			}
		}
		if out, ok := tool(ctx, "lfs", "getstripe", "-d", dir); ok {
			f.Stripe = strings.Join(strings.Fields(out), " ")
		}
	case f.FSType == "gpfs":
		if out, ok := tool(ctx, "mmlsconfig", "pagepool"); ok {
			if pp := pagepool(out); pp > 0 {
				f.CacheNotes = append(f.CacheNotes, "gpfs pagepool "+units.FormatBytes(pp))
			}
		}
	}
	return f
}

// tool runs a filesystem's own command when it is installed.
func tool(ctx context.Context, name string, args ...string) (string, bool) {
	path, err := exec.LookPath(name)
	if err != nil {
		// GPFS installs its commands outside PATH.
		if name != "mmlsconfig" {
			return "", false
		}
		path = "/usr/lpp/mmfs/bin/" + name
		if _, err := os.Stat(path); err != nil {
			return "", false
		}
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).Output()
	return string(out), err == nil
}

// memTotal parses /proc/meminfo's "MemTotal:  24563708 kB".
func memTotal(meminfo string) int64 {
	sc := bufio.NewScanner(strings.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
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

// pagepool reads `mmlsconfig pagepool`: lines "pagepool 32G" or
// "pagepool 96G [nsdNodes]"; the largest counts.
func pagepool(out string) int64 {
	var best int64
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "pagepool" {
			continue
		}
		if n := gpfsSize(f[1]); n > best {
			best = n
		}
	}
	return best
}

// gpfsSize parses GPFS's sizes: a number with an optional K, M, G or T
// (binary) suffix.
func gpfsSize(s string) int64 {
	shift := 0
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		shift = 10
	case "M":
		shift = 20
	case "G":
		shift = 30
	case "T":
		shift = 40
	}
	if shift > 0 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n << shift
}
