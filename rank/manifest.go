package rank

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ManifestName is the file a --keep job leaves in its job directory (on
// the node of rank 0) so that a later job can read the kept files again
// (--reuse): what the files hold and where each thread ran.
const ManifestName = "manifest.json"

// Manifest describes the files a kept job left.
type Manifest struct {
	JobID     string   `json:"job_id"`
	Seed      uint64   `json:"seed"` // the data pattern's seed: a reader verifies with it
	Threads   int      `json:"threads"`
	FileSize  int64    `json:"file_size"`
	Block     int64    `json:"block_size"`
	Hosts     []string `json:"hosts"` // Hosts[t] is the host thread t ran on
	Version   string   `json:"ioswarm_version"`
	CreatedAt string   `json:"created_at"` // RFC 3339
	// Layout and Pattern of the kept files; absent (per-thread) in
	// manifests from before shared files.
	Layout  string `json:"layout,omitempty"`
	Pattern string `json:"pattern,omitempty"`
}

// WriteManifest asks the rank to write Manifest into its job directory;
// nil (every rank but one) asks nothing.
type WriteManifest struct {
	Manifest *Manifest `json:"manifest,omitempty"`
}

// FindManifest asks rank 0's node for the manifest of a kept job under
// Dir: of job JobID, or the newest when JobID is empty. An empty Dir (the
// other ranks) asks nothing and gets an empty manifest.
type FindManifest struct {
	Dir   string `json:"dir"`
	JobID string `json:"job_id,omitempty"`
}

// writeManifest writes m into the job directory, whole or not at all: a
// half-written manifest must not be mistaken for a kept job.
func (s *state) writeManifest(m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return s.dir.writeFile(filepath.Join(s.jobDir, ManifestName), append(data, '\n'))
}

// findManifest reads the manifest of job id under dir, or of the newest
// kept job there when id is empty.
func findManifest(dir, id string) (Manifest, error) {
	var m Manifest
	path := ""
	if id != "" {
		if err := CheckJobID(id); err != nil {
			return m, err
		}
		path = filepath.Join(JobDir(dir, id), ManifestName)
	} else {
		matches, _ := filepath.Glob(filepath.Join(dir, "ioswarm-*", ManifestName))
		var newest os.FileInfo
		for _, p := range matches {
			st, err := os.Stat(p)
			if err == nil && (newest == nil || st.ModTime().After(newest.ModTime())) {
				newest, path = st, p
			}
		}
		if path == "" {
			return m, fmt.Errorf("no kept job under %s (a run with --keep leaves %s in its ioswarm-<job> directory)", dir, ManifestName)
		}
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, fmt.Errorf("%s: no such kept job (was it run with --keep?)", filepath.Dir(path))
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: not an ioswarm manifest: %w", path, err)
	}
	want := strings.TrimPrefix(filepath.Base(filepath.Dir(path)), "ioswarm-")
	if m.JobID != want || CheckJobID(m.JobID) != nil || m.Threads <= 0 || m.FileSize <= 0 || len(m.Hosts) != m.Threads {
		return m, fmt.Errorf("%s: damaged manifest (job %q, %d threads, %d hosts, file size %d)",
			path, m.JobID, m.Threads, len(m.Hosts), m.FileSize)
	}
	return m, nil
}

// checkReused makes sure every file a reusing job's threads will read is
// there at full size; a reusing job never writes, so a missing or short
// file is an error naming the first such file.
func (s *state) checkReused(phase string) error {
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
