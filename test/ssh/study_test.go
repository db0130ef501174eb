package ssh

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A two-section study on four nodes over SSH: one launch, every point of
// both sections in one file, the largest points spread over every node;
// a second system's study is compared with it, section by section, in
// one report; nothing is left on any node.
func TestStudyOnFourNodes(t *testing.T) {
	e := newEnv(t, 4)
	dir := t.TempDir()
	study := func(label string) string {
		out := filepath.Join(dir, label+".json")
		args := append([]string{"study", "--hosts", e.c.HostsFile, "--dir", e.dir, "--label", label,
			"--seq", "1,2,4,8", "--seq-total", "16MiB", "--random", "4,8", "--random-total", "8MiB",
			"--rand-time", "1s", "--block", "1MiB", "--progress", "off", "--output", out}, e.sshFlags()...)
		res := e.head(t, 5*time.Minute, args...)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", label, res.Code, res.Stderr)
		}
		if n := strings.Count(res.Stdout, "\n[seq] ") + strings.Count(res.Stdout, "\n[random] "); n != 2 {
			t.Errorf("%s: %d section tables, want 2:\n%s", label, n, res.Stdout)
		}
		return out
	}
	a := study("gen-a")
	b := study("gen-b")

	var saved struct {
		Kind     string `json:"kind"`
		Complete bool   `json:"complete"`
		Sections []struct {
			Section string `json:"section"`
			Points  []struct {
				Complete bool `json:"complete"`
				Config   struct {
					Threads int `json:"threads"`
				} `json:"config"`
				Hosts []struct {
					Host string `json:"host"`
				} `json:"hosts"`
			} `json:"points"`
		} `json:"sections"`
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Kind != "study" || !saved.Complete || len(saved.Sections) != 2 {
		t.Fatalf("study file: kind %q complete %v, %d sections", saved.Kind, saved.Complete, len(saved.Sections))
	}
	for _, sec := range saved.Sections {
		for _, p := range sec.Points {
			hosts := map[string]bool{}
			for _, h := range p.Hosts {
				hosts[h.Host] = true
			}
			if !p.Complete || (p.Config.Threads >= 4 && len(hosts) != 4) {
				t.Errorf("[%s] %d threads: complete %v on %d nodes", sec.Section, p.Config.Threads, p.Complete, len(hosts))
			}
		}
	}

	page := filepath.Join(dir, "report.html")
	res := e.head(t, time.Minute, "report", a, b, "-o", page)
	if res.Code != 0 {
		t.Fatalf("report: exit %d: %s", res.Code, res.Stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gen-a vs gen-b", "gen-b seq against gen-a seq", "gen-b random against gen-a random"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	e.checkClean(t, 5*time.Second)
}
