// Package mounts tells which filesystem holds a path, from the kernel's
// mount table. The rank reports it per node, the preflight shows it, and
// the srun launcher uses it to decide whether the binary must be
// broadcast. It imports only the standard library.
package mounts

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mount is the mount that holds a path, as the kernel's table lists it.
type Mount struct {
	Point   string // mount point
	Type    string // ext4, xfs, nfs4, lustre, gpfs, fuse.glusterfs, ...
	Source  string // device or remote: /dev/sda1, srv:/export, 10.0.0.1@tcp:/fs
	Options string // per-mount options, then the filesystem's own ("rw,relatime;rw,vers=4.2")
}

// ReadOnly reports whether the mount is read-only.
func (m Mount) ReadOnly() bool {
	opts, _, _ := strings.Cut(m.Options, ";")
	for _, o := range strings.Split(opts, ",") {
		if o == "ro" {
			return true
		}
	}
	return false
}

// FSType names the filesystem holding dir as the kernel does (ext4, xfs,
// nfs4, lustre, gpfs, fuse.beegfs, ...), or "unknown".
func FSType(dir string) string { return At(dir).Type }

// At returns the mount holding dir; Type is "unknown" when the table
// cannot be read.
func At(dir string) Mount {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return Mount{Type: "unknown"}
	}
	defer f.Close()
	return mountAt(f, real)
}

// typeAt is mountAt's type alone.
func typeAt(mountinfo io.Reader, path string) string { return mountAt(mountinfo, path).Type }

// mountAt reads a mountinfo table and returns the mount whose mount point
// is the longest prefix of path; of mounts stacked on one point, the last
// listed is the one visible. Lines are
// "id parent maj:min root mountpoint options [optional...] - type source superoptions".
func mountAt(mountinfo io.Reader, path string) Mount {
	best, bestLen := Mount{Type: "unknown"}, -1
	sc := bufio.NewScanner(mountinfo)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		before, after, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(before), strings.Fields(after)
		if !ok || len(f) < 6 || len(g) < 1 {
			continue
		}
		mp := unescape(f[4])
		if !under(path, mp) || len(mp) < bestLen {
			continue
		}
		best, bestLen = Mount{Point: mp, Type: g[0], Options: f[5]}, len(mp)
		if len(g) > 1 {
			best.Source = unescape(g[1])
		}
		if len(g) > 2 {
			best.Options += ";" + g[2]
		}
	}
	return best
}

func under(path, mountPoint string) bool {
	return mountPoint == "/" || path == mountPoint || strings.HasPrefix(path, mountPoint+"/")
}

// unescape undoes the octal escapes mountinfo uses for space, tab, newline
// and backslash in paths.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
