package rank

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// checkNode inspects the node and the benchmark directory without writing
// anything, so a bad directory on any node stops the job before a single
// file exists anywhere.
func checkNode(dir string, need int64) (SetupReply, error) {
	var r SetupReply
	st, err := os.Stat(dir)
	if err != nil {
		return r, fmt.Errorf("dir %s: %w", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return r, fmt.Errorf("dir %s: not a directory", dir)
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return r, fmt.Errorf("dir %s is not writable: %w", dir, err)
	}
	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		return r, fmt.Errorf("uname: %w", err)
	}
	r.Hostname = unix.ByteSliceToString(uts.Nodename[:])
	r.Kernel = unix.ByteSliceToString(uts.Release[:])
	r.Arch = unix.ByteSliceToString(uts.Machine[:])
	r.FSType = fsType(dir)
	var sfs unix.Statfs_t
	if err := unix.Statfs(dir, &sfs); err == nil {
		r.FreeB = int64(sfs.Bavail) * sfs.Bsize
		if need > r.FreeB {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"dir %s has %d bytes free, this node's threads need %d", dir, r.FreeB, need))
		}
	}
	r.CanDrop = canDropNode()
	r.PID = os.Getpid()
	return r, nil
}

// fsType names the filesystem holding dir as the kernel does (ext4, xfs,
// gpfs, lustre, nfs4, fuse.beegfs, ...): the type of the mount with the
// longest mount point that is a prefix of dir's real path.
func fsType(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	real, _ = filepath.Abs(real)
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	best, bestLen := "unknown", -1
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts [optional...] - fstype source superopts
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) {
			continue
		}
		mp := unescapeMount(fields[4])
		if !within(real, mp) || len(mp) < bestLen {
			continue
		}
		best, bestLen = fields[sep+1], len(mp)
	}
	return best
}

func within(path, mountPoint string) bool {
	if mountPoint == "/" {
		return true
	}
	return path == mountPoint || strings.HasPrefix(path, mountPoint+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + byte(c-'0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
