package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/wire"
)

// Kind is the "kind" of a sweep result file. A single run's file has no
// kind; the loaders tell the two apart by it.
const Kind = "sweep"

// Sizing says which size a sweep held fixed across its points.
const (
	SizingTotal    = "total"     // the aggregate, divided among the threads
	SizingFileSize = "file_size" // each thread's file
)

// Sweep is a scaling study: one full result per thread count. Its JSON
// form is a result file like a single run's; field names are as stable
// as result.Job's (add, never rename or remove).
type Sweep struct {
	Version string `json:"ioswarm_version"`
	Kind    string `json:"kind"`
	Label   string `json:"label"`
	// Threads lists the points asked for, in the order they ran.
	Threads []int `json:"threads"`
	// IODepths, in a sweep over queue depths, lists the depths each
	// thread count ran at (points: every thread count × every depth).
	IODepths []int `json:"iodepths,omitempty"`
	Setup    Setup `json:"setup"`
	// Complete is false when the sweep stopped early; Points then holds
	// the points measured so far, the last one perhaps incomplete.
	Complete bool          `json:"complete"`
	Error    string        `json:"error,omitempty"`
	Points   []*result.Job `json:"points"`
	// LaunchNS is how long starting the ranks took (once, before the
	// first point, and again after each failed try at a point); with each
	// point's outside_phases_ns it is the time the sweep spent outside
	// its timed phases.
	LaunchNS int64 `json:"launch_ns,omitempty"`
	// Failures lists every attempt at a point that failed, in the order
	// they ran, retried ones included (sweep --retries, --keep-going).
	Failures []PointFailure `json:"failures,omitempty"`
	// Section names the part of a study this sweep is (seq, random,
	// shared, metadata); empty for a sweep of its own.
	Section string `json:"section,omitempty"`

	// Source is the file the sweep was loaded from ("" when run here);
	// it names an unlabelled sweep in tables and charts.
	Source string `json:"-"`
}

// Setup is what every point shares.
type Setup struct {
	Phases        settings.PhaseList `json:"phases"`
	Sizing        string             `json:"sizing"`              // SizingTotal or SizingFileSize
	Total         int64              `json:"total,omitempty"`     // aggregate bytes when Sizing is total
	FileSize      int64              `json:"file_size,omitempty"` // bytes per thread when Sizing is file_size
	BlockSize     int64              `json:"block_size"`
	RandBlockSize int64              `json:"rand_block_size"`
	Dir           string             `json:"dir"`
	Iterations    int                `json:"iterations"`
	Direct        bool               `json:"direct"`
	OSync         bool               `json:"o_sync,omitempty"`
	ODSync        bool               `json:"o_dsync,omitempty"`
	Fsync         bool               `json:"fsync"`
	Engine        settings.Engine    `json:"engine,omitempty"`
}

// Name is what a sweep is called in tables and charts: its label, else
// its file's name without the extension.
func (s *Sweep) Name() string {
	if s.Label != "" {
		return s.Label
	}
	if s.Source != "" {
		return strings.TrimSuffix(filepath.Base(s.Source), ".json")
	}
	return "this run"
}

// WriteJSON writes s as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, s *Sweep) error {
	if s == nil {
		return errors.New("no sweep to write as JSON")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("writing sweep result: %w", err)
	}
	return nil
}

// Figure is one phase of one point: the figures a study compares, each
// the mean over the phase's iterations.
type Figure struct {
	Phase      string
	Threads    int
	IODepth    int // the point's queue depth (0 or 1: one operation in flight)
	Iterations int
	Bandwidth  float64 // bytes/s
	FirstDone  float64 // bytes/s
	SumOfRates float64 // bytes/s
	IOPS       float64 // operations/s
	Complete   bool    // false when the point's run ended early
	// FirstDoneWithheld: the phase reports no first-done figure (buffered
	// writes with fsync, see figures.FirstDoneNote).
	FirstDoneWithheld bool
	// MaybeCache: some iteration's cache verdict says the figure may come
	// from a cache, not storage.
	MaybeCache bool
	// The spread over the iterations (0 for one iteration).
	BandwidthStat, IOPSStat figures.Stat
}

// Spread is the figure a comparison and a chart rank points by: IOPS
// for random phases, bandwidth otherwise.
func (f Figure) Spread() figures.Stat {
	if wire.Phase(f.Phase).CountsOps() {
		return f.IOPSStat
	}
	return f.BandwidthStat
}

// FiguresOf returns one Figure per phase of job, in the order the phases
// first ran.
func FiguresOf(job *result.Job) []Figure {
	var out []Figure
	for _, s := range figures.Summarize(job.Phases) {
		f := Figure{
			Phase: s.Name, Threads: job.Config.Threads, IODepth: max(job.Config.IODepth, 1), Iterations: s.Iterations,
			Bandwidth: s.Bandwidth.Mean, FirstDone: s.FirstDoneBandwidth.Mean, SumOfRates: s.SumOfRates.Mean,
			IOPS: s.IOPS.Mean, Complete: job.Complete, BandwidthStat: s.Bandwidth, IOPSStat: s.IOPS,
		}
		for _, p := range job.Phases {
			if p.Name == s.Name && p.FirstDoneNote != "" {
				f.FirstDoneWithheld = true
			}
			f.MaybeCache = f.MaybeCache || (p.Name == s.Name && p.MaybeCache())
		}
		out = append(out, f)
	}
	return out
}

// DepthSwept reports whether the study's points differ in queue depth.
func (s *Sweep) DepthSwept() bool {
	depths := map[int]bool{}
	for _, p := range s.Points {
		depths[max(p.Config.IODepth, 1)] = true
	}
	return len(depths) > 1 || len(s.IODepths) > 1
}

// Figures returns the figures of every point, point by point.
func (s *Sweep) Figures() []Figure {
	var out []Figure
	for _, p := range s.Points {
		out = append(out, FiguresOf(p)...)
	}
	return out
}

// Phases lists the phase names of s in the order they ran: the setup's,
// then any a point holds that the setup does not name.
func (s *Sweep) Phases() []string {
	var names []string
	for _, p := range s.Setup.Phases {
		names = append(names, p.String())
	}
	for _, f := range s.Figures() {
		if !slices.Contains(names, f.Phase) {
			names = append(names, f.Phase)
		}
	}
	return names
}
