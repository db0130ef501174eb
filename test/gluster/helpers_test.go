package gluster

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// testUser is the user who is not root of the unprivileged runs.
const testUser = "ioswarm-test"

// perThread is each thread's file: --total 32MiB over --threads 4.
const perThread = 8 << 20

// runLimit bounds one run: 32 MiB three times over FUSE takes seconds.
const runLimit = 2 * time.Minute

// env is a cluster with the volume mounted on every node and the binary
// under test.
type env struct {
	c   *cluster.Cluster
	v   *Volume
	bin string
}

func newEnv(t *testing.T, nodes int, opt cluster.Options) *env {
	t.Helper()
	Skip(t)
	exe := bin.Path(t) // first: a build that fails needs no cluster
	c := cluster.StartWith(t, nodes, opt)
	return &env{c: c, v: Start(t, c), bin: exe}
}

// runArgs are the flags of every run here: four threads, 8 MiB each,
// the sequential write, read and random read phases, the JSON result.
func (e *env) runArgs(dir, out string) []string {
	return []string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", dir,
		"--total", "32MiB", "--block", "1MiB", "--phases", "write,read,randread",
		"--format", "json", "--output", out,
		"--ssh-config", e.c.SSHConfig, "--identity", e.c.Identity}
}

// run runs ioswarm from the head, logged in to the nodes as user ("" for
// the ssh_config's root), and returns what it did and the result file's
// path.
func (e *env) run(t *testing.T, user, dir string, extra ...string) (harness.Outcome, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "result.json")
	args := e.runArgs(dir, out)
	if user != "" {
		args = append(args, "--ssh-user", user)
	}
	o := harness.RunCmd(t, e.c.Head(context.Background(), e.bin, append(args, extra...)...), runLimit)
	t.Logf("ioswarm run %s: exit %d in %v", strings.Join(extra, " "), o.Code, o.Took.Round(time.Millisecond))
	return o, out
}

// mustRun is run that must succeed; it returns the decoded result.
func (e *env) mustRun(t *testing.T, user, dir string, extra ...string) *job {
	t.Helper()
	o, out := e.run(t, user, dir, extra...)
	if o.Code != 0 {
		t.Fatalf("run exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	j := loadJob(t, out)
	if !j.Complete || j.Error != "" {
		t.Fatalf("run exit 0 but complete %v, error %q", j.Complete, j.Error)
	}
	for _, p := range j.Phases {
		t.Logf("  %-8s %7.1f MB/s  cache_drop %-11s resident %.2f", p.Name, p.Bandwidth/1e6, p.CacheDrop, p.ResidentFraction)
	}
	return j
}

// checkNoJobFiles fails the test if a run left anything of its own on the
// volume: a job directory (ioswarm-*) or a thread's file (t*.dat) in any
// brick, or any entry in dir.
func (e *env) checkNoJobFiles(t *testing.T, dir string) {
	t.Helper()
	if left := e.v.BrickEntries(t, isJobEntry); len(left) > 0 {
		t.Errorf("the run left files in the bricks: %v", left)
	}
	if left := e.entriesOn(t, e.v.Nodes[0], dir); len(left) > 0 {
		t.Errorf("the run left %v in %s", left, dir)
	}
}

func isJobEntry(name string) bool {
	if strings.HasPrefix(name, "ioswarm-") {
		return true
	}
	ok, _ := filepath.Match("t*.dat", name)
	return ok
}

// entriesOn lists dir as node sees it: through its mount, if it has one.
func (e *env) entriesOn(t *testing.T, node, dir string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := e.c.Exec(ctx, node, "ls", "-A", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("ls %s on %s: %v: %s", dir, node, err, out)
	}
	return strings.Fields(string(out))
}

// job is the part of a run's JSON result these tests read, decoded
// leniently: it holds fields the result gains in the same-filesystem and
// read-shift work, as pointers where absence must be told from zero, so
// that the tests compile and say what is missing before that work lands.
type job struct {
	Complete bool     `json:"complete"`
	Error    string   `json:"error"`
	Warnings []string `json:"warnings"`
	Hosts    []host   `json:"hosts"`
	Phases   []phase  `json:"phases"`
}

type host struct {
	Host         string  `json:"host"`
	Threads      int     `json:"threads"`
	FSType       string  `json:"fs_type"`
	MemTotal     *int64  `json:"mem_total"`
	MountPoint   *string `json:"mount_point"`
	FSSource     *string `json:"fs_source"`
	MountOptions *string `json:"mount_options"`
	FSBlockSize  *int64  `json:"fs_block_size"`
}

type phase struct {
	Name             string          `json:"name"`
	Bandwidth        float64         `json:"bandwidth"` // bytes per second
	CacheDrop        string          `json:"cache_drop"`
	ResidentFraction float64         `json:"resident_fraction"`
	Threads          []thread        `json:"threads"`
	ResidentByHost   []hostResidency `json:"resident_by_host"`
	CacheGuard       *cacheGuard     `json:"cache_guard"`
}

type thread struct {
	Host            string  `json:"host"`
	Rank            int     `json:"rank"`
	Thread          int     `json:"thread"`
	File            string  `json:"file"`
	Bytes           int64   `json:"bytes"`
	WrittenByHost   *string `json:"written_by_host"`
	WrittenByThread *int    `json:"written_by_thread"`
}

type hostResidency struct {
	Host             string   `json:"host"`
	ResidentFraction *float64 `json:"resident_fraction"`
}

type cacheGuard struct {
	Applies       *bool           `json:"applies"`
	Warned        *bool           `json:"warned"`
	ClientCache   json.RawMessage `json:"client_cache"`
	ServerCache   json.RawMessage `json:"server_cache"`
	RequiredTotal json.RawMessage `json:"required_total"`
	Total         json.RawMessage `json:"total"`
}

func loadJob(t *testing.T, path string) *job {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j job
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatalf("result %s: %v", path, err)
	}
	return &j
}

// readPhases are the phases that read files back.
func (j *job) readPhases() []phase {
	var ps []phase
	for _, p := range j.Phases {
		if p.Name == "read" || p.Name == "randread" {
			ps = append(ps, p)
		}
	}
	return ps
}

func (j *job) phase(t *testing.T, name string) phase {
	t.Helper()
	for _, p := range j.Phases {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no %s phase in the result", name)
	return phase{}
}

// checkGlusterHosts checks that every node ran and saw the volume.
func checkGlusterHosts(t *testing.T, j *job, nodes []string) {
	t.Helper()
	if len(j.Hosts) != len(nodes) {
		t.Errorf("%d hosts in the result, want %d (%v)", len(j.Hosts), len(nodes), nodes)
	}
	for _, h := range j.Hosts {
		if h.FSType != "fuse.glusterfs" {
			t.Errorf("host %s: fs_type %q, want fuse.glusterfs", h.Host, h.FSType)
		}
	}
}

// checkThreadBytes checks that every phase has four threads that each
// moved their whole 8 MiB file.
func checkThreadBytes(t *testing.T, j *job) {
	t.Helper()
	if len(j.Phases) != 3 {
		t.Errorf("%d phases, want write, read, randread", len(j.Phases))
	}
	for _, p := range j.Phases {
		if len(p.Threads) != 4 {
			t.Errorf("%s: %d thread records, want 4", p.Name, len(p.Threads))
		}
		for _, th := range p.Threads {
			if th.Bytes != perThread {
				t.Errorf("%s: thread %d on %s moved %d bytes, want %d", p.Name, th.Thread, th.Host, th.Bytes, perThread)
			}
		}
	}
}

// lineWith returns the first line of s holding every one of words, or "".
func lineWith(s string, words ...string) string {
	for _, line := range strings.Split(s, "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			return line
		}
	}
	return ""
}
