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

// FSType names the filesystem holding dir as the kernel does (ext4, xfs,
// nfs4, lustre, gpfs, fuse.beegfs, ...), or "unknown".
func FSType(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	return typeAt(f, real)
}

// typeAt reads a mountinfo table and returns the type of the mount whose
// mount point is the longest prefix of path; of mounts stacked on one
// point, the last listed is the one visible. Lines are
// "id parent maj:min root mountpoint options [optional...] - type source superoptions".
func typeAt(mountinfo io.Reader, path string) string {
	best, bestLen := "unknown", -1
	sc := bufio.NewScanner(mountinfo)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		before, after, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(before), strings.Fields(after)
		if !ok || len(f) < 5 || len(g) < 1 {
			continue
		}
		mp := unescape(f[4])
		if !under(path, mp) || len(mp) < bestLen {
			continue
		}
		best, bestLen = g[0], len(mp)
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
