package ssh

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ioswarm/result"
	"ioswarm/test/harness"
)

// Every further read of the same files moves to nodes that have not
// touched them: on four nodes, one thread each, the read reads one node
// along, the reread two, the randread three; the second iteration's read
// finds no untouched node left and its verdict says so, while the page
// cache dropped on ext4 still shows storage. With the page cache kept
// (--drop-caches off) the bed's one kernel holds what the other nodes
// touched, and the verdict says that instead of storage.
func TestFurtherReadsMoveToUntouchedNodes(t *testing.T) {
	e := newEnv(t, 4)
	out := filepath.Join(t.TempDir(), "cold.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "16MiB", "--block", "1MiB", "--phases", "write,read,reread,randread", "--iterations", "2",
		"--verify", "--output", out}, e.sshFlags()...)
	res := e.head(t, 3*time.Minute, args...)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	job := harness.LoadResult(t, out)
	nodeOf := map[string]int{"node1": 0, "node2": 1, "node3": 2, "node4": 3}
	want := []struct {
		name      string
		iteration int
		shift     int
		reason    string
	}{
		{"read", 1, 1, "untouched"}, {"reread", 1, 2, "untouched"}, {"randread", 1, 3, "untouched"},
		{"read", 2, -1, "drop-caches"}, {"reread", 2, -1, "drop-caches"}, {"randread", 2, -1, "drop-caches"},
	}
	var reads []*result.Phase
	for i := range job.Phases {
		if job.Phases[i].Name != "write" {
			reads = append(reads, &job.Phases[i])
		}
	}
	if len(reads) != len(want) {
		t.Fatalf("%d read phases, want %d", len(reads), len(want))
	}
	for k, w := range want {
		p := reads[k]
		where := fmt.Sprintf("%s iteration %d", p.Name, p.Iteration)
		if p.Name != w.name || p.Iteration != w.iteration {
			t.Fatalf("read phase %d is %s, want %s iteration %d", k, where, w.name, w.iteration)
		}
		if w.shift > 0 {
			if p.ReadShift == nil || *p.ReadShift != w.shift {
				t.Errorf("%s: read_shift %v, want %d", where, p.ReadShift, w.shift)
			}
			for _, th := range p.Threads {
				if got := (nodeOf[th.WrittenByHost] - nodeOf[th.Host] + 4) % 4; got != w.shift {
					t.Errorf("%s: thread %d on %s read the file written on %s, %d node(s) along, want %d",
						where, th.Thread, th.Host, th.WrittenByHost, got, w.shift)
				}
			}
		}
		if p.CacheVerdict != result.VerdictStorage || len(p.CacheVerdicts) != 4 {
			t.Errorf("%s: verdict %q (%s), %d node verdicts; want storage on 4", where, p.CacheVerdict, p.CacheReason, len(p.CacheVerdicts))
		}
		for _, v := range p.CacheVerdicts {
			if v.Reason != w.reason {
				t.Errorf("%s: %s's verdict %s (%s: %s), want reason %s", where, v.Host, v.Verdict, v.Reason, v.Detail, w.reason)
			}
		}
	}

	// The page cache kept: the first read is rotated, but the bed's nodes
	// share one kernel, so no read is shown to be storage.
	out = filepath.Join(t.TempDir(), "warm.json")
	args = append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "16MiB", "--block", "1MiB", "--phases", "write,read,reread,randread", "--iterations", "2",
		"--drop-caches", "off", "--output", out}, e.sshFlags()...)
	res = e.head(t, 3*time.Minute, args...)
	if res.Code != 0 {
		t.Fatalf("--drop-caches off: exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	job = harness.LoadResult(t, out)
	for i := range job.Phases {
		p := &job.Phases[i]
		if p.Name == "write" {
			continue
		}
		if p.CacheVerdict != result.VerdictMaybeCache || !strings.Contains(strings.Join(job.Warnings, "\n"), p.Name+": cache verdict maybe-cache") {
			t.Errorf("--drop-caches off, %s iteration %d: verdict %q (%s), want maybe-cache and a warning", p.Name, p.Iteration, p.CacheVerdict, p.CacheReason)
		}
		wantReason := "shared-kernel"
		if p.Iteration == 2 {
			wantReason = "no-untouched-node"
		}
		for _, v := range p.CacheVerdicts {
			if v.Reason != wantReason && v.Reason != "resident" {
				t.Errorf("--drop-caches off, %s iteration %d: %s's reason %s (%s), want %s", p.Name, p.Iteration, v.Host, v.Reason, v.Detail, wantReason)
			}
		}
	}
	e.waitNothingLeft(t, 5*time.Second)
}

// A --dir that is each node's own (a private tmpfs on every node: the
// same type and source everywhere, which the mount table cannot tell
// apart) is found by the marker before any byte is written: an explicit
// --read-shift is a usage error with no phase run and nothing left, and
// --read-shift auto reads on the writing node, saying why.
func TestNodeLocalDirFoundBeforeWriting(t *testing.T) {
	e := newEnv(t, 3)
	for _, node := range e.c.Nodes {
		e.privateDir(t, node)
	}
	hosts := e.head(t, 2*time.Minute, append([]string{"hosts", "--hosts", e.c.HostsFile, "--dir", e.dir}, e.sshFlags()...)...)
	unshared := regexp.MustCompile(`(?m)^node[23]\s+ok\s.*\sno$`).FindAllString(hosts.Stdout, -1)
	if hosts.Code != 0 || len(unshared) != 2 || !strings.Contains(hosts.Stdout, "node2: note: does not see the marker node1 made") ||
		!strings.Contains(hosts.Stdout, "all 3 nodes ready, but --dir is not shared") {
		t.Errorf("hosts on node-local dirs: exit %d, want SHARED no on node2 and node3 with a note:\n%s\n%s", hosts.Code, hosts.Stdout, hosts.Stderr)
	}
	out := filepath.Join(t.TempDir(), "shift1.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "3", "--dir", e.dir,
		"--total", "24MiB", "--block", "1MiB", "--read-shift", "1", "--output", out}, e.sshFlags()...)
	res := e.head(t, 2*time.Minute, args...)
	if res.Code != 2 || !strings.Contains(res.Stderr, "--read-shift 1") || !strings.Contains(res.Stderr, "not shared") {
		t.Errorf("--read-shift 1 on node-local dirs: exit %d, want 2 naming the flag; stderr:\n%s", res.Code, res.Stderr)
	}
	if job := harness.LoadResult(t, out); len(job.Phases) != 0 {
		t.Errorf("--read-shift 1 on node-local dirs ran %d phase(s) before refusing", len(job.Phases))
	}
	for _, node := range e.c.Nodes {
		e.waitEmptyOn(t, node, 10*time.Second)
	}

	out = filepath.Join(t.TempDir(), "auto.json")
	args = append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "3", "--dir", e.dir,
		"--total", "24MiB", "--block", "1MiB", "--phases", "write,read", "--drop-caches", "off", "--verify",
		"--output", out}, e.sshFlags()...)
	res = e.head(t, 2*time.Minute, args...)
	if res.Code != 0 {
		t.Fatalf("--read-shift auto on node-local dirs: exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	job := harness.LoadResult(t, out)
	if job.Config.ReadShift != 0 || !strings.Contains(strings.Join(job.Warnings, "\n"), "not shared") {
		t.Errorf("auto on node-local dirs: read_shift %d, warnings %q", job.Config.ReadShift, job.Warnings)
	}
	for _, p := range job.Phases {
		if p.Name != "read" {
			continue
		}
		for _, th := range p.Threads {
			if th.WrittenByHost != th.Host {
				t.Errorf("read: thread %d on %s read a file written on %s", th.Thread, th.Host, th.WrittenByHost)
			}
		}
		if p.CacheVerdict != result.VerdictMaybeCache || len(p.CacheVerdicts) != 3 {
			t.Errorf("read: verdict %q with %d nodes, want maybe-cache on 3", p.CacheVerdict, len(p.CacheVerdicts))
		}
		for _, v := range p.CacheVerdicts {
			if v.Reason != "node-local" && v.Reason != "resident" {
				t.Errorf("read: %s's reason %s (%s), want node-local", v.Host, v.Reason, v.Detail)
			}
		}
	}
	for _, node := range e.c.Nodes {
		e.waitEmptyOn(t, node, 10*time.Second)
	}
}

// Kept files read again and again by --reuse jobs move on to nodes that
// have not touched them, by the kept manifest's record of writers and
// readers: one node along, then two and three, then none is left (the
// page cache dropped on the shared ext4 still shows storage). A manifest
// from before the record leaves the readers unknown, and the verdict no
// longer claims untouched bytes.
func TestReuseMovesOnToUntouchedNodes(t *testing.T) {
	e := newEnv(t, 4)
	common := append([]string{"--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir, "--total", "16MiB", "--block", "1MiB"}, e.sshFlags()...)
	runJob := func(what string, args ...string) *result.Job {
		t.Helper()
		out := filepath.Join(t.TempDir(), "job.json")
		res := e.head(t, 2*time.Minute, append(append([]string{"run", "--output", out}, args...), common...)...)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", what, res.Code, res.Stderr)
		}
		return harness.LoadResult(t, out)
	}
	kept := runJob("kept write", "--phases", "write", "--keep")
	reuse := []string{"--reuse", kept.JobID, "--verify"}
	steps := []struct {
		phases string
		shifts []int // per read phase; -1: no untouched node left
		reason string
	}{
		{"read", []int{1}, "untouched"},
		{"read,randread", []int{2, 3}, "untouched"},
		{"read", []int{-1}, "drop-caches"},
	}
	for k, s := range steps {
		job := runJob(fmt.Sprintf("reuse %d", k+1), append([]string{"--phases", s.phases, "--keep"}, reuse...)...)
		if len(job.Phases) != len(s.shifts) {
			t.Fatalf("reuse %d: %d phases, want %d", k+1, len(job.Phases), len(s.shifts))
		}
		for i, p := range job.Phases {
			if s.shifts[i] > 0 && (p.ReadShift == nil || *p.ReadShift != s.shifts[i]) {
				t.Errorf("reuse %d %s: read_shift %v, want %d", k+1, p.Name, p.ReadShift, s.shifts[i])
			}
			for _, v := range p.CacheVerdicts {
				if v.Reason != s.reason {
					t.Errorf("reuse %d %s: %s's verdict %s (%s: %s), want %s", k+1, p.Name, v.Host, v.Verdict, v.Reason, v.Detail, s.reason)
				}
			}
		}
	}
	manifest := filepath.Join(e.dir, "ioswarm-"+kept.JobID, "manifest.json")
	stripReaders(t, manifest)
	job := runJob("reuse of an old manifest", append([]string{"--phases", "read"}, reuse...)...)
	for _, v := range job.Phases[0].CacheVerdicts {
		if v.Reason == "untouched" {
			t.Errorf("old manifest: %s's verdict claims untouched bytes (%s)", v.Host, v.Detail)
		}
	}
	e.waitNothingLeft(t, 10*time.Second)
}

// stripReaders makes the manifest at path one from before writers and
// readers were recorded.
func stripReaders(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage // raw: the seed is a uint64 a float would round
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["read_by"]; !ok {
		t.Fatalf("the manifest records no readers: %s", data)
	}
	delete(m, "read_by")
	delete(m, "written_by")
	if data, err = json.Marshal(m); err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
