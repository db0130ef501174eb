package ssh

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A warm run costs each node one SSH session, as OpenSSH's own log shows
// (sshd logs "Starting session" at LogLevel VERBOSE, which the bed sets):
// the session that finds the stamped copy becomes the rank. A cold run
// takes two: the session that probes, waits for the copy and then becomes
// the rank, and the copy's.
func TestWarmRunTakesOneSessionPerNode(t *testing.T) {
	e := newEnv(t, 4)
	seen := make(map[string]int) // per node, how much of its log was read
	sessions := func(node string) int {
		log := readFile(t, filepath.Join(e.c.Dir, "nodes", node, "sshd.log"))
		n := strings.Count(log[seen[node]:], "Starting session: command for root")
		seen[node] = len(log)
		return n
	}
	for _, node := range e.c.Nodes {
		sessions(node) // the bed's own check that sshd answers
	}
	for _, run := range []struct {
		name string
		want int
	}{{"cold", 2}, {"warm", 1}} {
		o := e.head(t, 2*time.Minute, e.shortArgs()...)
		if o.Code != 0 {
			t.Fatalf("%s run: exit %d\n%s", run.name, o.Code, o.Stderr)
		}
		for _, node := range e.c.Nodes {
			if got := sessions(node); got != run.want {
				t.Errorf("%s run: %d SSH sessions on %s, want %d; the run said:\n%s", run.name, got, node, run.want, o.Stderr)
			}
		}
	}
	e.checkClean(t, 5*time.Second)
}
