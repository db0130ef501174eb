package rank

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory the rank works in: the job directory or
// a metadata directory in it. Every file the rank makes, opens, stats or
// removes there is reached relative to the descriptor (openat and its
// kin), never by its path again, so a directory replaced by a link after
// it was checked cannot redirect a write or an unlink outside it.
type dirHandle struct {
	path   string // for messages: what the user knows the directory as
	prefix string // path + "/"
	fd     int
}

// openDirHandle opens path itself (O_NOFOLLOW: a link at its name is
// refused) and checks the opened directory, not the name, for an owner
// other than this user.
func openDirHandle(path string) (*dirHandle, error) {
	return openDirAt(unix.AT_FDCWD, path, path)
}

// openDirAt opens name relative to dirfd; path is its full path, for
// messages.
func openDirAt(dirfd int, name, path string) (*dirHandle, error) {
	fd, err := openNoFollow(dirfd, name, path)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if euid := os.Geteuid(); int(st.Uid) != euid && euid != 0 {
		// (Root is exempt: NFS's root_squash gives its directories to
		// nobody.)
		unix.Close(fd)
		return nil, fmt.Errorf("job directory %s belongs to uid %d, not to this user (%d): refused", path, st.Uid, euid)
	}
	return &dirHandle{path: path, prefix: path + "/", fd: fd}, nil
}

// openNoFollow opens the directory name, relative to dirfd, itself: a
// symbolic link at the name, or anything but a directory, is refused.
// path is its full path, for messages.
func openNoFollow(dirfd int, name, path string) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return -1, fmt.Errorf("job directory %s is a symbolic link or not a directory: refused (ioswarm writes only in a directory it made)", path)
	}
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// name is path's name in d; a path not directly in d is an error, so no
// caller can reach past the directory by a path built elsewhere.
func (d *dirHandle) name(path string) (string, error) {
	rest, ok := strings.CutPrefix(path, d.prefix)
	if !ok || rest == "" || strings.ContainsRune(rest, '/') || rest == "." || rest == ".." {
		return "", fmt.Errorf("%s is not in the job directory %s", path, d.path)
	}
	return rest, nil
}

// open opens path, which must be in d, relative to d. O_NOFOLLOW is the
// caller's: every caller in this package passes it. A nil d opens path as
// it is: only unit tests of a single worker run phases without one, since
// a rank refuses to run a phase before its job directory is open.
func (d *dirHandle) open(path string, flags int, mode uint32) (int, error) {
	if d == nil {
		return unix.Open(path, flags, mode)
	}
	n, err := d.name(path)
	if err != nil {
		return -1, err
	}
	for {
		fd, err := unix.Openat(d.fd, n, flags, mode)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// cname is what rawOpenat takes for path: the directory's descriptor and
// path's NUL-terminated name in it (a nil d: the path itself, relative to
// the working directory). A timed open makes it before its start stamp,
// so nothing is allocated between the stamp and the call.
func (d *dirHandle) cname(path string) (int, []byte, error) {
	dirfd, n := unix.AT_FDCWD, path
	if d != nil {
		var err error
		if n, err = d.name(path); err != nil {
			return -1, nil, err
		}
		dirfd = d.fd
	}
	if strings.IndexByte(n, 0) >= 0 {
		return -1, nil, unix.EINVAL
	}
	return dirfd, append([]byte(n), 0), nil
}

// remove unlinks path from d; a file already gone is no error.
func (d *dirHandle) remove(path string) error {
	n, err := d.name(path)
	if err != nil {
		return err
	}
	if err := unix.Unlinkat(d.fd, n, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// size is the size of path in d, without following a link; a missing file
// is os.ErrNotExist.
func (d *dirHandle) size(path string) (int64, error) {
	n, err := d.name(path)
	if err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Size, nil
}

// put writes data into the file name in d, made or truncated, as
// os.WriteFile does.
func (d *dirHandle) put(name string, data []byte) error {
	fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return &os.PathError{Op: "create", Path: filepath.Join(d.path, name), Err: err}
	}
	err = pwriteFull(fd, data, 0)
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// writeFile writes data to path in d, whole or not at all (a temporary
// name, then a rename in the same directory).
func (d *dirHandle) writeFile(path string, data []byte) error {
	n, err := d.name(path)
	if err != nil {
		return err
	}
	tmp := n + ".tmp"
	err = d.put(tmp, data)
	if err == nil {
		if err = unix.Renameat(d.fd, tmp, d.fd, n); err != nil {
			err = &os.PathError{Op: "write", Path: path, Err: err}
		}
	}
	if err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
	}
	return err
}

// mkdir makes the directory name in d (an existing one is kept: another
// rank sharing the filesystem may have made it) and opens it as a
// handle, checked like the job directory.
func (d *dirHandle) mkdir(name string) (*dirHandle, error) {
	path := filepath.Join(d.path, name)
	if err := unix.Mkdirat(d.fd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	return openDirAt(d.fd, name, path)
}

func (d *dirHandle) close() {
	if d != nil && d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}
