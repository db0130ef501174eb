package rank

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"ioswarm/internal/usage"
	"ioswarm/wire"
)

// manifestPath is where a job directory holds its kept job's manifest.
func manifestPath(jobDir string) string { return filepath.Join(jobDir, wire.ManifestName) }

// writeManifest writes m into the job directory, whole or not at all: a
// half-written manifest must not be mistaken for a kept job.
func (s *state) writeManifest(m wire.Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return s.dir.writeFile(manifestPath(s.jobDir), append(data, '\n'))
}

// findManifest reads the manifest of job id under dir, or of the newest
// kept job there when id is empty.
func findManifest(dir, id string) (wire.Manifest, error) {
	var m wire.Manifest
	path := ""
	if id != "" {
		if err := wire.CheckJobID(id); err != nil {
			return m, err
		}
		path = manifestPath(wire.JobDir(dir, id))
	} else {
		newest, err := newestKeptManifest(dir)
		if err != nil {
			return m, err
		}
		path = newest
	}
	m, err := readManifestFile(path)
	if err != nil {
		return m, err
	}
	want := strings.TrimPrefix(filepath.Base(filepath.Dir(path)), wire.JobDirPrefix)
	if m.JobID != want || wire.CheckJobID(m.JobID) != nil || m.Threads <= 0 || m.FileSize <= 0 || len(m.Hosts) != m.Threads {
		return m, fmt.Errorf("%s: damaged manifest (job %q, %d threads, %d hosts, file size %d)",
			usage.Value(path), m.JobID, m.Threads, len(m.Hosts), m.FileSize)
	}
	return m, nil
}

// checkReused makes sure every file a reusing job's threads will read is
// there at full size; a reusing job never writes, so a missing or short
// file is an error naming the first such file.
func (s *state) checkReused(phase wire.Phase) error {
	for _, w := range s.workers {
		src := w.readSource(&phaseParams{name: phase})
		size, err := s.dir.size(src.path)
		if err != nil {
			return fmt.Errorf("reused job %s: %w", s.job.FilesOf, err)
		}
		want := w.size
		if src.m.shared() {
			want = src.m.seg * src.m.threads
		}
		if size < want {
			return fmt.Errorf("reused job %s: %s holds %d bytes, the job wrote %d", s.job.FilesOf, src.path, size, want)
		}
	}
	return nil
}
