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

	"ioswarm/preflight"
)

// An IOzone -+m client file of 8 lines over 4 nodes: run starts a rank
// per line (IOzone's child per line) and its table counts 4 nodes, not 8;
// hosts checks each of the 4 nodes once.
func TestThreadListCountsNodes(t *testing.T) {
	e := newEnv(t, 4)
	var list strings.Builder
	for i := range 8 {
		fmt.Fprintf(&list, "node%d %s /usr/bin/iozone\n", i%4+1, e.dir)
	}
	threadlist := filepath.Join(t.TempDir(), "threadlist")
	if err := os.WriteFile(threadlist, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := append([]string{"run", "--hosts", threadlist, "--total", "8MiB", "--block", "1MiB",
		"--drop-caches", "off"}, e.sshFlags()...)
	o := e.head(t, 2*time.Minute, run...)
	if o.Code != 0 {
		t.Fatalf("run exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	if !regexp.MustCompile(`(?m)^nodes +4 \(8 ranks\)$`).MatchString(o.Stdout) ||
		!regexp.MustCompile(`(?m)^threads +8 \(one per line of `).MatchString(o.Stdout) {
		t.Errorf("want nodes 4 (8 ranks) and 8 threads, one per line:\n%s", o.Stdout)
	}
	hosts := append([]string{"hosts", "--hosts", threadlist, "--format", "json"}, e.sshFlags()...)
	o = e.head(t, 2*time.Minute, hosts...)
	if o.Code != 0 {
		t.Fatalf("hosts exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	var results []preflight.Result
	if err := json.Unmarshal([]byte(o.Stdout), &results); err != nil {
		t.Fatalf("hosts JSON: %v\n%s", err, o.Stdout)
	}
	var names []string
	for _, r := range results {
		names = append(names, r.Host)
	}
	if strings.Join(names, " ") != "node1 node2 node3 node4" {
		t.Errorf("hosts checked %q, want each of node1..node4 once", names)
	}
	e.checkClean(t, 5*time.Second)
}
