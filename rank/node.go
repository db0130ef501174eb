package rank

import (
	"errors"
	"fmt"
	"ioswarm/mounts"
	"ioswarm/wire"
	"os"

	"golang.org/x/sys/unix"
)

// checkNode inspects the node and the benchmark directory without writing
// anything, so a bad directory on any node stops the job before a single
// file exists anywhere.
func checkNode(dir string, need int64) (wire.SetupReply, error) {
	var r wire.SetupReply
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
	r.FSType = mounts.FSType(dir)
	var sfs unix.Statfs_t
	if err := unix.Statfs(dir, &sfs); err == nil {
		r.FreeB = int64(sfs.Bavail) * sfs.Bsize
		if need > r.FreeB {
			r.Warnings = append(r.Warnings, freeSpaceWarning(dir, r.FreeB, need))
		}
	}
	r.CanDrop = canDropNode()
	r.PID = os.Getpid()
	return r, nil
}
