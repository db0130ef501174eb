package selfbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A rank hashes the image it runs before it joins (the proof of its
// build), 15 MiB read and hashed on every node at every start: about
// 11 ms of CPU each, which on a host running many ranks, or a node whose
// CPUs are busy, is most of the rank's start. The SSH launcher already
// keeps, beside each copy it places, a stamp per node: the copy's hash,
// checked when the copy was placed or last probed, and the file's identity
// as coreutils' `stat -c '%d %i %s %y %z'` prints it (device, inode, size,
// modification and change times to the nanosecond). A rank whose running
// image still has that identity takes the stamp's hash. Any write,
// replacement or rename of the file moves its change time, which no
// unprivileged program can set back, and a running executable cannot be
// written at all (ETXTBSY). Stamps live only in the private cache
// directory (0700, checked on every launch). A stamp that does not match,
// because the file changed or because this process formats the times
// otherwise than stat did (another time zone), only means the image is
// hashed.

// fileID is f's identity as `stat -c '%d %i %s %y %z'` prints it.
func fileID(f *os.File) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("stat %s: no device and inode", f.Name())
	}
	const layout = "2006-01-02 15:04:05.000000000 -0700"
	mtime := time.Unix(sys.Mtim.Unix()).Format(layout)
	ctime := time.Unix(sys.Ctim.Unix()).Format(layout)
	return fmt.Sprintf("%d %d %d %s %s", sys.Dev, sys.Ino, st.Size(), mtime, ctime), nil
}

// StampedHash is the hex SHA-256 of the open file f: the stamp's hash
// when the stamp at stamp names f's identity, else computed. It writes
// nothing: stamps are the launcher's.
func StampedHash(f *os.File, stamp string) (string, error) {
	id, err := fileID(f)
	if err != nil {
		return "", err
	}
	if b, err := os.ReadFile(stamp); err == nil {
		if hash, rest, ok := strings.Cut(strings.TrimSpace(string(b)), " "); ok && rest == id && isHash(hash) {
			return hash, nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return "", fmt.Errorf("hash %s: %w", f.Name(), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CachedImage is Image for a rank started from a copy the SSH launcher
// placed, home/.cache/ioswarm/<sha256>/ioswarm: the hash of the running
// image through the stamp the launcher keeps beside it for host (the
// kernel's host name). An executable anywhere else (a preinstalled
// binary, srun's broadcast copy, a local run) is hashed as Image hashes
// it.
func CachedImage(home, host string) (string, error) {
	exe, err := os.Executable()
	if err != nil || home == "" || host == "" || strings.ContainsRune(host, '/') {
		return Image()
	}
	dir := filepath.Dir(exe)
	if filepath.Base(exe) != "ioswarm" || filepath.Dir(dir) != filepath.Join(home, ".cache", "ioswarm") || !isHash(filepath.Base(dir)) {
		return Image()
	}
	f, err := os.Open("/proc/self/exe") // the running image, whatever its path names now
	if err != nil {
		return Image()
	}
	defer f.Close()
	return StampedHash(f, filepath.Join(dir, "ioswarm.verified."+host))
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}
