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
// costs a node that streams its copy one session too (it probes, fetches,
// waits and then becomes the rank), and a node that then serves its copy
// to others two: the fetch and the server take a session of their own.
// Of four nodes at most two serve (see the copy tree's serveNext).
func TestWarmRunTakesOneSessionPerNode(t *testing.T) {
	e := newEnv(t, 4)
	sessions := sessionCounter(t, e)
	for _, run := range []struct {
		name    string
		most    int // sessions a node may take
		onlyOne int // nodes that must take one session
	}{{"cold", 2, 2}, {"warm", 1, 4}} {
		o := e.head(t, 2*time.Minute, e.shortArgs()...)
		if o.Code != 0 {
			t.Fatalf("%s run: exit %d\n%s", run.name, o.Code, o.Stderr)
		}
		one := 0
		for _, node := range e.c.Nodes {
			got := sessions(node)
			if got < 1 || got > run.most {
				t.Errorf("%s run: %d SSH sessions on %s, want 1 to %d; the run said:\n%s", run.name, got, node, run.most, o.Stderr)
			}
			if got == 1 {
				one++
			}
		}
		if one < run.onlyOne {
			t.Errorf("%s run: %d nodes took one SSH session, want at least %d; the run said:\n%s", run.name, one, run.onlyOne, o.Stderr)
		}
	}
	e.checkClean(t, 5*time.Second)
}

// sessionCounter returns a function that tells how many SSH sessions a
// node of e's bed started since it was last asked, from sshd's own log;
// the sessions before the call (the bed's own check) are not counted.
func sessionCounter(t *testing.T, e *env) func(node string) int {
	t.Helper()
	seen := make(map[string]int) // per node, how much of its log was read
	sessions := func(node string) int {
		log := readFile(t, filepath.Join(e.c.Dir, "nodes", node, "sshd.log"))
		n := strings.Count(log[seen[node]:], "Starting session: command for root")
		seen[node] = len(log)
		return n
	}
	for _, node := range e.c.Nodes {
		sessions(node)
	}
	return sessions
}
