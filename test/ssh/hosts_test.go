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

	"ioswarm/internal/loadslack"
	"ioswarm/preflight"
	"ioswarm/test/harness"
)

// The preflight over three nodes: a table line each, all ready, exit 0;
// the JSON form carries what the table shows and a clock bound.
func TestHostsPreflight(t *testing.T) {
	e := newEnv(t, 3)
	args := append([]string{"hosts", "--hosts", e.c.HostsFile, "--dir", e.dir}, e.sshFlags()...)
	// By default the table keeps to the columns that decide a run.
	o := e.head(t, 2*time.Minute, args...)
	// node, status, fs, free, memory, write, drop, shared
	compact := regexp.MustCompile(`(?m)^node\d\s+ok\s+\S+\s+\S+ \S+\s+\S+ \S+\s+yes\s+yes\s+yes$`)
	if o.Code != 0 || len(compact.FindAllString(o.Stdout, -1)) != 3 || !strings.Contains(o.Stdout, "--details)") {
		t.Fatalf("hosts exit %d, want 3 compact rows and a pointer to --details\nstdout:\n%s\nstderr:\n%s", o.Code, o.Stdout, o.Stderr)
	}
	o = e.head(t, 2*time.Minute, append(args, "--details")...)
	if o.Code != 0 {
		t.Fatalf("hosts exit %d\nstdout:\n%s\nstderr:\n%s", o.Code, o.Stdout, o.Stderr)
	}
	// host, status, user, arch, kernel, fs, free, memory, writable, drop caches, io_uring, clock, shared
	line := regexp.MustCompile(`(?m)^(node\d)\s+ok\s+root\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+ \S+\s+\S+ \S+\s+yes\s+yes\s+(yes|no)\s+[+-]\d+\.\d+ ms ±\d+\.\d+ ms\s+yes$`)
	got := line.FindAllStringSubmatch(o.Stdout, -1)
	if len(got) != 3 || !strings.Contains(o.Stdout, "all 3 nodes ready") {
		t.Fatalf("table:\n%s", o.Stdout)
	}
	// One filesystem on all three, and the memory the seed's rule doubles.
	if !regexp.MustCompile(`(?m)^filesystem: .* at \S+ \(block .*\) on 3 node\(s\)$`).MatchString(o.Stdout) ||
		!strings.Contains(o.Stdout, "memory: the clients can cache") {
		t.Errorf("no filesystem or memory line:\n%s", o.Stdout)
	}
	for i, m := range got {
		if m[1] != fmt.Sprintf("node%d", i+1) || m[4] == "-" || m[4] == "unknown" {
			t.Errorf("row %d: %q", i, m[0])
		}
	}
	o = e.head(t, 2*time.Minute, append(args, "--format", "json")...)
	var res []preflight.Result
	if err := json.Unmarshal([]byte(o.Stdout), &res); err != nil || o.Code != 0 || len(res) != 3 {
		t.Fatalf("json: exit %d, %v:\n%s", o.Code, err, o.Stdout)
	}
	for _, r := range res {
		if !r.OK || r.Report == nil || r.Clock == nil || r.Report.FreeBytes <= 0 || r.Shared == nil || !*r.Shared {
			t.Errorf("%s: %+v", r.Host, r)
			continue
		}
		// Every node shares this machine's clocks, so the true offset is
		// zero: the estimate must hold it within its bound, and the bound
		// of a round trip over a local bridge is well under 50 ms (more
		// by what load now delays a wake-up by).
		if c := r.Clock; abs(c.WallNS) > c.ErrorNS || abs(c.MonoNS) > c.ErrorNS || c.ErrorNS > int64(loadslack.Bound(50*time.Millisecond)) {
			t.Errorf("%s: clock %+v: offset outside its bound, or bound too loose", r.Host, *c)
		}
	}
	if n := len(harness.DirEntries(t, e.dir)); n != 0 {
		t.Errorf("the preflight left %d entries in %s", n, e.dir)
	}
}

// A node that cannot be reached, and a directory that does not exist on
// the others, fail the preflight: exit 1, the reasons listed.
func TestHostsPreflightFailures(t *testing.T) {
	e := newEnv(t, 2)
	if err := e.c.LinkDown("node2"); err != nil {
		t.Fatal(err)
	}
	defer e.c.LinkUp("node2")
	missing := filepath.Join(e.dir, "missing")
	args := append([]string{"hosts", "--hosts", e.c.HostsFile, "--dir", missing, "--connect-timeout", "2s"}, e.sshFlags()...)
	o := e.head(t, time.Minute, args...)
	if o.Code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", o.Code, o.Stdout, o.Stderr)
	}
	for _, want := range []string{"node1: directory: stat " + missing, "node2: connect to", "2 of 2 nodes failed"} {
		if !strings.Contains(o.Stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.Stdout)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the preflight created %s", missing)
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
