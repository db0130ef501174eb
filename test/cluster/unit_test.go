package cluster

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestParseEnv(t *testing.T) {
	env, err := parseEnv([]byte("# made by cluster.sh\nCLUSTER_N='2'\nCLUSTER_NODES='node1 node2'\n\nCLUSTER_DIR='/tmp/a b'\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"CLUSTER_N": "2", "CLUSTER_NODES": "node1 node2", "CLUSTER_DIR": "/tmp/a b"}
	if len(env) != len(want) {
		t.Errorf("parsed %d keys (%v), want %d", len(env), env, len(want))
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	for _, bad := range []string{"NOEQUALS", "K=unquoted", "K='open", "K='a'b'", "='x'", "K='"} {
		if _, err := parseEnv([]byte(bad + "\n")); err == nil {
			t.Errorf("parseEnv(%q) succeeded, want an error", bad)
		}
	}
}

func TestParseRecord(t *testing.T) {
	r, err := parseRecord("1234 98765 node1 sshd\n")
	if err != nil {
		t.Fatal(err)
	}
	if r.pid != 1234 || r.start != "98765" || r.label != "node1 sshd" {
		t.Errorf("parseRecord = %+v", r)
	}
	for _, bad := range []string{"", "1234", "x 1", "-5 1", "0 1"} {
		if _, err := parseRecord(bad); err == nil {
			t.Errorf("parseRecord(%q) succeeded, want an error", bad)
		}
	}
}

// TestRecordAlive checks liveness against this very process: alive with
// its own start time, not alive with another one (a reused PID).
func TestRecordAlive(t *testing.T) {
	state, start, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if state == 'Z' || start == "" {
		t.Fatalf("procStat(self) = %c %q", state, start)
	}
	if !(record{pid: os.Getpid(), start: start}).alive() {
		t.Error("this process is not alive by its own record")
	}
	if (record{pid: os.Getpid(), start: start + "0"}).alive() {
		t.Error("a record with another start time counts as alive")
	}
}

func TestPrefixFor(t *testing.T) {
	a, b := prefixFor("TestX"), prefixFor("TestX")
	if !regexp.MustCompile(`^t[0-9a-f]{12}-$`).MatchString(a) {
		t.Errorf("prefix %q: want t + 12 hex digits + -", a)
	}
	if a[:5] != b[:5] || a[5:9] != b[5:9] {
		t.Errorf("prefixes %q and %q differ in the name hash or PID part", a, b)
	}
	if c := prefixFor("TestY"); c[:5] == a[:5] {
		t.Errorf("TestX and TestY share the name hash: %q %q", a, c)
	}
}

// TestExecRefusesUnknownNode needs no cluster: the node check and the pid
// record lookup happen before anything runs.
func TestExecRefusesUnknownNode(t *testing.T) {
	c := &Cluster{Dir: t.TempDir(), Nodes: []string{"node1"}}
	err := c.Exec(context.Background(), "node9", "true").Run()
	if err == nil || !strings.Contains(err.Error(), `"node9"`) {
		t.Errorf("Exec on node9: %v; want an error naming node9", err)
	}
	err = c.Exec(context.Background(), "node1", "true").Run()
	if err == nil || !strings.Contains(err.Error(), "node1: reading its sshd pid record") {
		t.Errorf("Exec on node1 without a pid record: %v", err)
	}
	if err := c.LinkDown("node9"); err == nil {
		t.Error("LinkDown(node9) succeeded on a cluster without node9")
	}
}
