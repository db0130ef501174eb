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
		return wire.MarkerReply{Seen: true}, s.dir.put(wire.MarkerName, []byte(in.Token))
	case wire.MarkerLook:
		seen, err := s.seesMarker(path, in.Token)
		return wire.MarkerReply{Seen: seen}, err
	case wire.MarkerRemove:
		return wire.MarkerReply{}, s.dir.remove(path)
	}
	return wire.MarkerReply{}, nil
}

// seesMarker reads the marker, if this node sees one, and compares its
// token: only this job's marker counts.
func (s *state) seesMarker(path, token string) (bool, error) {
	fd, err := s.dir.open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
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
