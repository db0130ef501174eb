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
)

// A rank hashes the image it runs before it joins (the proof of its
// build), 15 MiB read and hashed on every node at every start: about
// 11 ms of CPU each, which on a host running many ranks, or a node whose
// CPUs are busy, is most of the rank's start. A stamp beside a cached
// copy spares it: after hashing, the rank writes the hash with the file's
// identity (device, inode, size, modification and change times to the
// nanosecond); a later rank of the same file whose identity still matches
// takes the hash from the stamp. Any write, replacement or rename of the
// file moves its change time, which no unprivileged program can set back,
// and a running executable cannot be written at all (ETXTBSY). Stamps are
// kept only in the private cache directory the SSH launcher places copies
// in (0700, checked on every launch), per host, since hosts sharing a home
// over NFS see one file under different device numbers.

// fileID is what identifies a file's contents without reading them.
func fileID(f *os.File) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("stat %s: no device and inode", f.Name())
	}
	return fmt.Sprintf("%d %d %d %d %d", sys.Dev, sys.Ino, st.Size(),
		sys.Mtim.Nano(), sys.Ctim.Nano()), nil
}

// StampedHash is the hex SHA-256 of the open file f: the stamp's hash
// when the stamp at stamp still names f's identity, else computed, and
// the stamp (re)written, best effort: a stamp that cannot be written only
// means the next start hashes again.
func StampedHash(f *os.File, stamp string) (string, error) {
	id, err := fileID(f)
	if err != nil {
		return "", err
	}
	if b, err := os.ReadFile(stamp); err == nil {
		if hash, rest, ok := strings.Cut(strings.TrimSpace(string(b)), " "); ok && rest == id && len(hash) == 64 {
			return hash, nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return "", fmt.Errorf("hash %s: %w", f.Name(), err)
	}
	hash := hex.EncodeToString(h.Sum(nil))
	tmp := fmt.Sprintf("%s.%d", stamp, os.Getpid())
	if err := os.WriteFile(tmp, []byte(hash+" "+id+"\n"), 0o600); err == nil {
		if os.Rename(tmp, stamp) != nil {
			os.Remove(tmp)
		}
	}
	return hash, nil
}

// CachedImage is Image for a rank started from a copy the SSH launcher
// placed, home/.cache/ioswarm/<sha256>/ioswarm: the hash of the running
// image through a stamp beside it named for host. An executable anywhere
// else (a preinstalled binary, srun's broadcast copy, a local run) is
// hashed as Image hashes it, and nothing is written beside it.
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
	return StampedHash(f, filepath.Join(dir, "ioswarm.rank-verified."+host))
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}
