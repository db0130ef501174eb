package study

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A study's file holds each section as a full sweep and reads back as
// it was written; a section not reached yet has no points; its measured
// sections are named after the study; the flat view holds every point.
func TestStudyFileRoundTrip(t *testing.T) {
	seq := fixtureSweep(t, "sys", []int{1, 2}, nil)
	seq.Section = "seq"
	random := &Sweep{Version: seq.Version, Kind: Kind, Section: "random", Threads: []int{1, 4}, Setup: seq.Setup}
	s := &Study{Version: seq.Version, Kind: StudyKind, Label: "sys", Plan: "[seq]\nthreads = 1,2\n",
		Sections: []*Sweep{seq, random}}
	var b bytes.Buffer
	if err := WriteStudyJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Plan != s.Plan || len(got.Sections) != 2 || got.Sections[0].Section != "seq" ||
		len(got.Sections[0].Points) != 2 || len(got.Sections[1].Points) != 0 || got.Sections[1].Section != "random" {
		t.Fatalf("read back: %+v", got)
	}
	m := got.Measured()
	if len(m) != 1 || m[0].Name() != "sys seq" {
		t.Errorf("measured sections: %d, first %q", len(m), m[0].Name())
	}
	if f := got.Flatten(); len(f.Points) != 2 || f.Kind != Kind {
		t.Errorf("flat: %d points", len(f.Points))
	}
	// An N-1 section running the sequential section's phases is not in
	// the flat view: write@2 must name the N-N point.
	shared := fixtureSweep(t, "sys", []int{2}, nil)
	shared.Section = SharedSection
	got.Sections = append(got.Sections, shared)
	if f := got.Flatten(); len(f.Points) != 2 {
		t.Errorf("flat with an N-1 section: %d points, want the 2 N-N ones", len(f.Points))
	}
	// A sweep's loader says what a study file is instead of failing on
	// an unknown kind; a sweep is not a study.
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "a study's file") {
		t.Errorf("Load of a study: %v", err)
	}
	if _, err := LoadStudy(filepath.Join("testdata", "gen1.json")); err == nil || !strings.Contains(err.Error(), "not a study") {
		t.Errorf("LoadStudy of a sweep: %v", err)
	}
	if any, err := LoadAny(filepath.Join("testdata", "gen1.json")); err != nil || len(any.Sections) != 1 || any.Name() != "gen1" {
		t.Errorf("LoadAny of a sweep: %v", err)
	}
}
