package preflight

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"ioswarm/nodefacts"
	"ioswarm/uring"
	"ioswarm/wire"
	"os"
	"os/user"
	"strconv"

	"golang.org/x/sys/unix"
)

// Report is what a node says about itself and its benchmark directory.
type Report struct {
	Hostname  string `json:"hostname"`
	User      string `json:"user"`
	Arch      string `json:"arch"`
	Kernel    string `json:"kernel"`
	Dir       string `json:"dir"`
	DirError  string `json:"dir_error,omitempty"` // the directory is missing or unusable
	FSType    string `json:"fs_type"`
	FreeBytes int64  `json:"free_bytes"`
	Writable  bool   `json:"writable"`
	WriteErr  string `json:"write_error,omitempty"`
	CanDrop   bool   `json:"can_drop_caches"`
	// Facts are the node's memory and the mount under Dir.
	Facts *nodefacts.Facts `json:"facts,omitempty"`
	// NoUring says why --engine io_uring cannot run here ("" = it can).
	NoUring string `json:"no_io_uring,omitempty"`
}

const dropCaches = "/proc/sys/vm/drop_caches"

// Probe inspects this node. The write test creates a job-like directory
// <dir>/ioswarm-<random> holding one 4 KiB file, synced, and removes both:
// the same names a benchmark would use, and nothing else.
func Probe(dir string) Report {
	r := Report{Dir: dir, User: currentUser()}
	r.Hostname, _ = os.Hostname()
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		r.Arch = unix.ByteSliceToString(uts.Machine[:])
		r.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	r.CanDrop = os.Geteuid() == 0 && unix.Access(dropCaches, unix.W_OK) == nil
	r.NoUring = uring.Available()
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		r.DirError = err.Error()
		return r
	case !st.IsDir():
		r.DirError = dir + ": not a directory"
		return r
	}
	facts := nodefacts.Gather(context.Background(), dir)
	r.Facts = &facts
	r.FSType = facts.FSType
	var sfs unix.Statfs_t
	if unix.Statfs(dir, &sfs) == nil {
		r.FreeBytes = int64(sfs.Bavail) * sfs.Bsize
	}
	if err := writeTest(dir); err != nil {
		r.WriteErr = err.Error()
	} else {
		r.Writable = true
	}
	return r
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Geteuid())
}

// writeTest writes, syncs and removes one small file in a fresh job
// directory, which proves more than access(2): a read-only mount, a full
// disk or a quota all show up here.
func writeTest(dir string) error {
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	jd := wire.JobDir(dir, hex.EncodeToString(id[:]))
	if err := os.Mkdir(jd, 0o755); err != nil {
		return err
	}
	defer os.Remove(jd)
	p := wire.ThreadFile(jd, 0)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(p)
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // not zeros, which some filesystems elide
	}
	_, werr := f.Write(buf)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
