package wire

import "ioswarm/settings"

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
	Layout  settings.Layout  `json:"layout,omitempty"`
	Pattern settings.Pattern `json:"pattern,omitempty"`
	// WrittenBy[f] is the node that wrote thread f's file (or part of the
	// shared file); ReadBy[f] the other nodes that touched it since, in
	// the kept job and in every job that reused it. A later --reuse reads
	// each file on a node in neither. Manifests from before these fields
	// lack them: the writer is then Hosts[f], the readers unknown.
	WrittenBy []string   `json:"written_by,omitempty"`
	ReadBy    [][]string `json:"read_by,omitempty"`
}

// WriteManifest asks the rank to write Manifest into its job directory;
// nil (every rank but one) asks nothing.
type WriteManifest struct {
	Manifest *Manifest `json:"manifest,omitempty"`
	// KeepTime keeps an existing manifest's modification time: a job
	// that only adds its readers to a kept job's manifest does not make
	// that job the newest for --reuse latest.
	KeepTime bool `json:"keep_time,omitempty"`
}

// FindManifest asks rank 0's node for the manifest of a kept job under
// Dir: of job JobID, or the newest when JobID is empty. An empty Dir (the
// other ranks) asks nothing and gets an empty manifest.
type FindManifest struct {
	Dir   string `json:"dir"`
	JobID string `json:"job_id,omitempty"`
}
