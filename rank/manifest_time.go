package rank

import (
	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

// rewriteManifest writes m over the kept manifest a reusing job adds its
// readers to, keeping the old file's modification time: --reuse latest
// picks the newest kept job by that time, and a job that only read the
// files must not make an older kept job the newest.
func (s *state) rewriteManifest(m wire.Manifest) error {
	path := manifestPath(s.jobDir)
	var st unix.Stat_t
	had := unix.Fstatat(s.dir.fd, wire.ManifestName, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
	if err := s.writeManifest(m); err != nil || !had {
		return err
	}
	times := []unix.Timespec{st.Atim, st.Mtim}
	if err := unix.UtimesNanoAt(s.dir.fd, wire.ManifestName, times, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &pathErr{op: "keep the time of", path: path, err: err}
	}
	return nil
}

// pathErr names the file and what was done to it.
type pathErr struct {
	op, path string
	err      error
}

func (e *pathErr) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }
func (e *pathErr) Unwrap() error { return e.err }
