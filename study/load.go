package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"ioswarm/report"
	"ioswarm/result"
)

// Load reads a result file: a sweep, or a single run, which becomes a
// sweep of one point so that every command can take either.
func Load(path string) (*Sweep, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Read(f, path)
	if err != nil {
		return nil, err
	}
	s.Source = path
	return s, nil
}

// Read is Load from a reader; name is used only in error messages.
func Read(r io.Reader, name string) (*Sweep, error) {
	data, err := io.ReadAll(io.LimitReader(r, report.MaxResultBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > report.MaxResultBytes {
		return nil, fmt.Errorf("%s: larger than the limit for a result file", name)
	}
	var probe struct {
		Kind   string            `json:"kind"`
		Points []json.RawMessage `json:"points"`
	}
	// A file that is not a JSON object fails here or, with a better
	// message, in report.LoadJob below.
	if json.Unmarshal(data, &probe) != nil || probe.Kind == "" {
		job, err := report.LoadJob(bytes.NewReader(data), name)
		if err != nil {
			return nil, err
		}
		return single(job), nil
	}
	if probe.Kind == StudyKind {
		return nil, fmt.Errorf("%s: a study's file (one sweep per section): this command takes a sweep; ioswarm report, compare and plot take a study", name)
	}
	if probe.Kind != Kind {
		return nil, fmt.Errorf("%s: a result file of kind %q, which this version cannot read", name, probe.Kind)
	}
	return readSweep(data, probe.Points, name)
}

// readSweep decodes a sweep file, checking each point as strictly as a
// single run's file.
func readSweep(data []byte, points []json.RawMessage, name string) (*Sweep, error) {
	var s Sweep
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: not a valid sweep file: %w", name, err)
	}
	if s.Version == "" {
		return nil, fmt.Errorf("%s: not an ioswarm result file (no ioswarm_version)", name)
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("%s: a sweep without points", name)
	}
	s.Points = make([]*result.Job, len(points))
	for i, raw := range points {
		job, err := report.LoadJob(bytes.NewReader(raw), fmt.Sprintf("%s: point %d", name, i+1))
		if err != nil {
			return nil, err
		}
		s.Points[i] = job
	}
	if len(s.Setup.Phases) == 0 {
		s.Setup = SetupOf(s.Points[0].Config)
	}
	// The points' own configuration is the record of how the I/O was done.
	c := s.Points[0].Config
	s.Setup.Direct, s.Setup.OSync, s.Setup.ODSync, s.Setup.Fsync = c.Direct, c.OSync, c.ODSync, c.Fsync
	return &s, nil
}

// single wraps one run as a sweep of one point.
func single(job *result.Job) *Sweep {
	return &Sweep{
		Version: job.Version, Kind: Kind, Label: job.Label, Threads: []int{job.Config.Threads},
		Setup: SetupOf(job.Config), Complete: job.Complete, Error: job.Error, Points: []*result.Job{job},
	}
}
