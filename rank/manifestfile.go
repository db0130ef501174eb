package rank

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"ioswarm/internal/usage"
	"ioswarm/wire"
)

// maxManifestBytes caps what is read of a manifest. A manifest names one
// host per thread, so even a million threads' manifest stays well under
// it; anything larger is not one of ours, and reading it whole would only
// cost the rank its memory.
const maxManifestBytes = 64 << 20

// maxKeptEntries caps how many directory entries the search for the
// newest kept job looks at: a scratch directory with millions of entries
// must not hold the job up.
const maxKeptEntries = 100000

// keptCandidate is a job directory the search for the newest kept job
// may take.
type keptCandidate struct {
	path  string // the manifest's path
	mtime int64  // the manifest's modification time, ns
}

// newestKeptManifest is the manifest path of the newest kept job under
// dir that this user made: a job directory owned by someone else (a
// shared scratch directory lets anyone plant one, with any modification
// time), a link, or a manifest that is not a plain file of sane size is
// passed over, and the error says why when nothing is left.
func newestKeptManifest(dir string) (string, error) {
	names, err := jobDirNames(dir)
	if err != nil {
		return "", err
	}
	var best keptCandidate
	skipped, firstWhy := 0, ""
	for _, name := range names {
		c, why := keptCandidateIn(dir, name)
		if why != "" {
			if skipped == 0 {
				firstWhy = why
			}
			skipped++
			continue
		}
		if best.path == "" || c.mtime > best.mtime {
			best = c
		}
	}
	if best.path != "" {
		return best.path, nil
	}
	if skipped > 0 {
		return "", fmt.Errorf("no kept job of yours under %s: passed over %d job directories (first: %s); name the job with --reuse <job id> if it is yours",
			usage.Value(dir), skipped, firstWhy)
	}
	return "", fmt.Errorf("no kept job under %s (a run with --keep leaves %s in its ioswarm-<job> directory)", usage.Value(dir), wire.ManifestName)
}

// jobDirNames lists the names in dir that look like job directories,
// reading at most maxKeptEntries entries.
func jobDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("looking for the newest kept job: %w", err)
	}
	defer d.Close()
	all, err := d.Readdirnames(maxKeptEntries)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("looking for the newest kept job in %s: %w", usage.Value(dir), err)
	}
	var names []string
	for _, n := range all {
		if id, ok := strings.CutPrefix(n, wire.JobDirPrefix); ok && wire.CheckJobID(id) == nil {
			names = append(names, n)
		}
	}
	return names, nil
}

// keptCandidateIn checks the job directory name in dir without following
// links and without opening anything: it returns the candidate, or why it
// is not one.
func keptCandidateIn(dir, name string) (keptCandidate, string) {
	uid := uint32(os.Geteuid())
	jobDir := filepath.Join(dir, name)
	var st unix.Stat_t
	if err := unix.Lstat(jobDir, &st); err != nil {
		return keptCandidate{}, fmt.Sprintf("%s: %v", usage.Value(name), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return keptCandidate{}, fmt.Sprintf("%s is not a directory (a link?)", usage.Value(name))
	}
	if st.Uid != uid {
		return keptCandidate{}, fmt.Sprintf("%s belongs to uid %d, not to you (%d)", usage.Value(name), st.Uid, uid)
	}
	path := manifestPath(jobDir)
	if err := unix.Lstat(path, &st); err != nil {
		return keptCandidate{}, fmt.Sprintf("%s has no readable %s", usage.Value(name), wire.ManifestName)
	}
	if why := manifestStatProblem(&st, uid, false); why != "" {
		return keptCandidate{}, fmt.Sprintf("%s/%s %s", usage.Value(name), wire.ManifestName, why)
	}
	return keptCandidate{path: path, mtime: st.Mtim.Nano()}, ""
}

// manifestStatProblem says what is wrong with a manifest file for this
// user (uid), or "". anyOwner lets a manifest of another user's job
// through, for a job the user named himself.
func manifestStatProblem(st *unix.Stat_t, uid uint32, anyOwner bool) string {
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "is not a regular file"
	case !anyOwner && st.Uid != uid:
		return fmt.Sprintf("belongs to uid %d, not to you (%d)", st.Uid, uid)
	case st.Size > maxManifestBytes:
		return fmt.Sprintf("holds %d bytes, more than a manifest's limit of %d", st.Size, maxManifestBytes)
	}
	return ""
}

// readManifestFile reads the manifest at path without following a link
// at its name and without blocking on a FIFO or device (O_NONBLOCK at
// open, then the opened file must be a regular one), through
// maxManifestBytes.
func readManifestFile(path string) (wire.Manifest, error) {
	var m wire.Manifest
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return m, fmt.Errorf("%s: no such kept job (was it run with --keep?)", usage.Value(filepath.Dir(path)))
	}
	if errors.Is(err, unix.ELOOP) {
		return m, fmt.Errorf("%s is a symbolic link: refused", usage.Value(path))
	}
	if err != nil {
		return m, &os.PathError{Op: "open", Path: usage.Value(path), Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return m, &os.PathError{Op: "stat", Path: usage.Value(path), Err: err}
	}
	euid := uint32(os.Geteuid())
	if why := manifestStatProblem(&st, euid, euid == 0); why != "" {
		return m, fmt.Errorf("%s %s: refused", usage.Value(path), why)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return m, fmt.Errorf("reading %s: %w", usage.Value(path), err)
	}
	if len(data) > maxManifestBytes {
		return m, fmt.Errorf("%s grew past a manifest's limit of %d bytes while read: refused", usage.Value(path), maxManifestBytes)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: not an ioswarm manifest: %w", usage.Value(path), err)
	}
	return m, nil
}
