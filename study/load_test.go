package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/report"
)

func TestLoadSweep(t *testing.T) {
	s := load(t, "gen1.json")
	if s.Label != "gen1" || len(s.Points) != 3 || s.Name() != "gen1" || !s.Complete {
		t.Fatalf("label %q name %q points %d complete %v", s.Label, s.Name(), len(s.Points), s.Complete)
	}
	for i, want := range []int{1, 2, 4} {
		if got := s.Points[i].Config.Threads; got != want {
			t.Errorf("point %d: %d threads, want %d", i, got, want)
		}
	}
	if got := len(s.Figures()); got != 9 {
		t.Errorf("%d figures, want 9 (3 points × 3 phases)", got)
	}
}

// A single run's result file loads as a sweep of one point, named after
// its file when it has no label.
func TestLoadSingleRun(t *testing.T) {
	job := load(t, "gen1.json").Points[1]
	job.Label = ""
	path := filepath.Join(t.TempDir(), "nvme-run.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(f, job); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 1 || s.Threads[0] != 2 || s.Name() != "nvme-run" {
		t.Fatalf("points %d threads %v name %q", len(s.Points), s.Threads, s.Name())
	}
	if s.Setup.Total != 800*mib || s.Setup.BlockSize != block || len(s.Setup.Phases) != 3 {
		t.Errorf("setup not recovered from the run: %+v", s.Setup)
	}
}

func TestLoadErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "gen1.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The second point loses its ioswarm_version: the error must say
	// which point of which file.
	second := strings.Index(string(good), `"ioswarm_version": "0.1.0-test",
      "job_id": "fixture-gen1-2"`)
	if second < 0 {
		t.Fatal("fixture layout changed: cannot find point 2")
	}
	damaged := string(good[:second]) + strings.Replace(string(good[second:]), `"ioswarm_version": "0.1.0-test",`, "", 1)
	cases := []struct{ name, data, want string }{
		{"empty.json", "", "empty file"},
		{"list.json", "[1,2]", "not an ioswarm result file"},
		{"other.json", `{"ioswarm_version":"1","kind":"histogram"}`, `kind "histogram"`},
		{"nopoints.json", `{"ioswarm_version":"1","kind":"sweep","points":[]}`, "without points"},
		{"noversion.json", `{"kind":"sweep","points":[{}]}`, "no ioswarm_version"},
		{"damaged.json", damaged, "damaged.json: point 2: not an ioswarm result file"},
		{"truncated.json", string(good[:len(good)/2]), "truncated JSON"},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.data), c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestMergeByLabel(t *testing.T) {
	a := load(t, "gen1.json")
	one, two := *a, *a
	one.Points, two.Points = a.Points[:1], a.Points[1:]
	one.Source, two.Source = "r1.json", "r2to4.json"
	other := load(t, "gen2.json")
	merged, err := Merge([]*Sweep{&two, other, &one})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 2 || merged[0].Label != "gen1" || len(merged[0].Points) != 3 {
		t.Fatalf("got %d studies, first %q with %d points", len(merged), merged[0].Label, len(merged[0].Points))
	}
	for i, want := range []int{1, 2, 4} {
		if merged[0].Points[i].Config.Threads != want || merged[0].Threads[i] != want {
			t.Errorf("merged point %d: %d threads, want %d", i, merged[0].Points[i].Config.Threads, want)
		}
	}
	if _, err := Merge([]*Sweep{a, &two}); err == nil || !strings.Contains(err.Error(), "2 threads in both") {
		t.Errorf("duplicate point: %v", err)
	}
	a.Label, two.Label = "", ""
	if apart, err := Merge([]*Sweep{a, &two}); err != nil || len(apart) != 2 {
		t.Errorf("unlabelled studies must stay apart: %d, %v", len(apart), err)
	}
}
