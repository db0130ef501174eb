package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ioswarm/report"
	"ioswarm/settings"
)

// StudyKind is the "kind" of a study's result file: several sweeps (its
// sections) run on one launch of the ranks.
const StudyKind = "study"

// Study is the whole characterisation `ioswarm study` runs: one sweep
// per section (sequential N-N, random IOPS, N-1, metadata), each a full
// sweep as a sweep's own file holds it. Its JSON form is as stable as
// Sweep's (add, never rename or remove).
type Study struct {
	Version string `json:"ioswarm_version"`
	Kind    string `json:"kind"`
	Label   string `json:"label"`
	// Plan is the study's plan in canonical form (studyplan): a rerun
	// continues the study only when its plan is the same.
	Plan        string `json:"plan"`
	CommandLine string `json:"command_line,omitempty"`
	// Complete is false while sections or points are missing; Error says
	// why the last run stopped.
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`
	// LaunchNS is how long starting the ranks took, for the last run.
	LaunchNS int64 `json:"launch_ns,omitempty"`
	// Sections are the sections in the order they run; each one's
	// Section field names it. A section not yet reached has no points.
	Sections []*Sweep `json:"sections"`

	Source string `json:"-"` // the file it was loaded from
}

// Name is what the study is called: its label, else its file's name.
func (s *Study) Name() string {
	if s.Label != "" {
		return s.Label
	}
	if s.Source != "" {
		return strings.TrimSuffix(filepath.Base(s.Source), ".json")
	}
	return "this study"
}

// Measured are the sections holding at least one point, each labelled
// "<study> <section>" for tables and charts, with the study's source.
func (s *Study) Measured() []*Sweep {
	var out []*Sweep
	for _, sec := range s.Sections {
		if len(sec.Points) == 0 {
			continue
		}
		c := *sec
		c.Label = s.Name() + " " + sec.Section
		c.Source = s.Source
		out = append(out, &c)
	}
	return out
}

// SharedSection is the section of N-1 runs (one file for all threads).
const SharedSection = "shared"

// Flatten is every section's points as one sweep, in section order: what
// an acceptance test judges (write@64 finds the sequential section's
// point, randread@256 the random one's). The N-1 section's points are
// left out when another section runs the same phases: the figures a
// vendor promises are N-N, and a phase at a thread count must name one
// point.
func (s *Study) Flatten() *Sweep {
	f := &Sweep{Version: s.Version, Kind: Kind, Label: s.Label, Complete: s.Complete, Error: s.Error, Source: s.Source}
	nn := map[settings.Phase]bool{}
	for _, sec := range s.Sections {
		if sec.Section != SharedSection {
			for _, ph := range sec.Setup.Phases {
				nn[ph] = true
			}
		}
	}
	for _, sec := range s.Sections {
		if sec.Section == SharedSection && slices.ContainsFunc(sec.Setup.Phases, func(ph settings.Phase) bool { return nn[ph] }) {
			continue
		}
		if f.Setup.Phases == nil {
			f.Setup = sec.Setup
			f.Setup.Phases = nil
		}
		for _, ph := range sec.Setup.Phases {
			if !slices.Contains(f.Setup.Phases, ph) {
				f.Setup.Phases = append(f.Setup.Phases, ph)
			}
		}
		f.Threads = append(f.Threads, sec.Threads...)
		f.Points = append(f.Points, sec.Points...)
	}
	return f
}

// WriteStudyJSON writes s as indented JSON with a trailing newline.
func WriteStudyJSON(w io.Writer, s *Study) error {
	if s == nil {
		return errors.New("no study to write as JSON")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("writing study result: %w", err)
	}
	return nil
}

// LoadAny reads a result file of any kind as a study: a study's file as
// it is, a sweep's or a single run's as a study of one unnamed section.
func LoadAny(path string) (*Study, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(data, &probe) == nil && probe.Kind == StudyKind {
		s, err := readStudy(data, path)
		if err != nil {
			return nil, err
		}
		s.Source = path
		return s, nil
	}
	sw, err := Read(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	sw.Source = path
	return &Study{Version: sw.Version, Kind: StudyKind, Label: sw.Label, Complete: sw.Complete,
		Error: sw.Error, Sections: []*Sweep{sw}, Source: path}, nil
}

// LoadStudy reads a study's file; any other kind is an error.
func LoadStudy(path string) (*Study, error) {
	s, err := LoadAny(path)
	if err != nil {
		return nil, err
	}
	if s.Plan == "" {
		return nil, fmt.Errorf("%s: not a study's result file (a sweep or a single run)", path)
	}
	return s, nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, report.MaxResultBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > report.MaxResultBytes {
		return nil, fmt.Errorf("%s: larger than the limit for a result file", path)
	}
	return data, nil
}

// readStudy decodes a study file, each section's points checked as
// strictly as a sweep's.
func readStudy(data []byte, name string) (*Study, error) {
	var raw struct {
		Sections []json.RawMessage `json:"sections"`
	}
	var s Study
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: not a valid study file: %w", name, err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a valid study file: %w", name, err)
	}
	if s.Version == "" {
		return nil, fmt.Errorf("%s: not an ioswarm result file (no ioswarm_version)", name)
	}
	if len(raw.Sections) == 0 {
		return nil, fmt.Errorf("%s: a study without sections", name)
	}
	s.Sections = make([]*Sweep, len(raw.Sections))
	for i, sec := range raw.Sections {
		var probe struct {
			Section string            `json:"section"`
			Points  []json.RawMessage `json:"points"`
		}
		if err := json.Unmarshal(sec, &probe); err != nil {
			return nil, fmt.Errorf("%s: section %d: %w", name, i+1, err)
		}
		where := fmt.Sprintf("%s: section %q", name, probe.Section)
		if len(probe.Points) == 0 {
			var empty Sweep
			if err := json.Unmarshal(sec, &empty); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			empty.Points = nil
			s.Sections[i] = &empty
			continue
		}
		sw, err := readSweep(sec, probe.Points, where)
		if err != nil {
			return nil, err
		}
		s.Sections[i] = sw
	}
	return &s, nil
}
