package rank

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

// markerPath is the shared-directory marker in the job directory.
func markerPath(jobDir string) string { return filepath.Join(jobDir, wire.MarkerName) }

// marker makes, looks for or removes the marker that tells whether the
// nodes share the job directory: made by one node, looked for by the
// others, whose reply says whether they saw it with its token.
func (s *state) marker(in wire.Marker) (wire.MarkerReply, error) {
	if s.dir == nil {
		return wire.MarkerReply{}, errors.New("marker: the job directory is not open")
	}
	path := markerPath(s.jobDir)
	switch in.Step {
	case wire.MarkerMake:
		return wire.MarkerReply{Seen: true}, s.inJobDir(func(d *dirHandle) error {
			return d.put(wire.MarkerName, []byte(in.Token))
		})
	case wire.MarkerLook:
		var seen bool
		err := s.inJobDir(func(d *dirHandle) (err error) {
			seen, err = seesMarker(d, path, in.Token)
			return err
		})
		return wire.MarkerReply{Seen: seen}, err
	case wire.MarkerRemove:
		return wire.MarkerReply{}, s.dir.remove(path)
	}
	return wire.MarkerReply{}, nil
}

// seesMarker reads the marker, if this node sees one, and compares its
// token: only this job's marker counts.
func seesMarker(d *dirHandle, path, token string) (bool, error) {
	fd, err := d.open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("marker %s: %w", path, err)
	}
	defer unix.Close(fd)
	buf := make([]byte, len(token)+1)
	n, err := unix.Pread(fd, buf, 0)
	if err != nil {
		return false, fmt.Errorf("marker %s: %w", path, err)
	}
	return string(buf[:n]) == token, nil
}

// inJobDir runs op on the job directory's handle. The marker is the first
// file the job makes there, and on GlusterFS the handle a node opened
// while several nodes made the directory at once can be stale by then:
// the whole suite beside two CPU hogs failed with "create
// .../.shared-marker: stale file handle" on one node. On ESTALE the
// directory is opened again by its path and op tried again, a few times
// (whileHealing), as the mkdir and the first open already are.
func (s *state) inJobDir(op func(d *dirHandle) error) error {
	return whileHealing(func() error {
		err := op(s.dir)
		if !errors.Is(err, unix.ESTALE) {
			return err
		}
		if d, oerr := openDirHandle(s.jobDir); oerr == nil {
			s.dir.close()
			s.dir = d
		}
		return err
	}, unix.ESTALE)
}
