package ssh

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A host with no sshd (here the head's own address on a closed port)
// fails the run at once with its name and the reason, before any rank
// starts anywhere.
func TestUnreachableHostNamed(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	dead := "root@" + e.c.HeadIP + ":2"
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "--hosts", "node[1-3]," + dead, "--threads", "4", "--dir", e.dir,
		"--total", "8MiB", "--block", "1MiB", "--output", out}, e.sshFlags()...)
	o := e.head(t, time.Minute, args...)
	if o.Code != 1 || o.Took > bound {
		t.Errorf("exit %d after %v, want 1 within %v", o.Code, o.Took, bound)
	}
	msg := finalError(t, o.Stderr, "host "+e.c.HeadIP+" rank 3", e.c.HeadIP+":2", "connection refused")
	// Even a run that never started leaves its result file, with the error.
	if job := checkIncomplete(t, out, msg, 4); len(job.Phases) != 0 || job.Config.Threads != 4 {
		t.Errorf("result of a run that never started: %d phases, %d threads", len(job.Phases), job.Config.Threads)
	}
	e.checkClean(t, 5*time.Second)
}

// A cached binary altered on one node (here replaced by a script that
// would leave a mark if it ran) is found by its hash before anything
// starts there: it is replaced, said so, and never run; the run succeeds
// and the node's copy verifies again.
func TestTamperedCacheReplaced(t *testing.T) {
	e := newEnv(t, 4)
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "8MiB", "--block", "1MiB"}, e.sshFlags()...)
	if o := e.head(t, 2*time.Minute, args...); o.Code != 0 {
		t.Fatalf("first run exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	// The cluster's directory is visible at its own path on every node.
	mark := filepath.Join(e.c.Dir, "tampered-binary-ran")
	script := "#!/bin/sh\ntouch " + mark + "\nexit 1\n"
	if err := os.WriteFile(e.cachedOn("node2"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	o := e.head(t, 2*time.Minute, args...)
	if o.Code != 0 {
		t.Fatalf("run after tampering: exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	sum := sha256.Sum256([]byte(script))
	for _, want := range []string{
		"warning: host node2: " + e.remoteExe() + " has sha256 " + hex.EncodeToString(sum[:])[:12] + ", not " + e.hash[:12] + "; replacing it",
		"copied to 1, already cached on 3",
	} {
		if !strings.Contains(o.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.Stderr)
		}
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("the tampered binary ran on node2 (stat %s: %v)", mark, err)
	}
	data, err := os.ReadFile(e.cachedOn("node2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != e.hash {
		t.Errorf("node2's cached copy has sha256 %x after the run, want %s", got, e.hash)
	}
	e.checkClean(t, 5*time.Second)
}
