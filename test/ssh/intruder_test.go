package ssh

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// A hostile process on a node (built from testdata/intruder) connects to
// the coordinator's pinned port mid-run: an HTTP request, an oversized
// frame, a Hello that is not ioswarm's, a Hello for another job, a rank's
// Hello (real job, binary hash and rank, as a recording of a genuine
// handshake would hold) followed by a stale proof, then 100 idle
// connections. Each is refused and logged; the run completes with figures
// that recompute.
//
// The intruder reads the job ID from a rank's command line, as anyone on
// the node can; it cannot learn the secret, which travels on the rank's
// standard input. Every rank slot is taken by then, so the replay is
// refused at the slot check before any proof is looked at; the proof
// check itself is covered by the barrier's own tests.
func TestIntrudersRejected(t *testing.T) {
	e := newEnv(t, 4)
	intruder := buildIntruder(t)
	listen := e.c.HeadIP + ":7411"
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--iterations", "30", "--drop-caches", "off",
		"--listen", listen, "--output", out}, e.sshFlags()...)
	cmd := e.c.Head(context.Background(), e.bin, args...)
	stderr := &harness.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	e.waitThreadFiles(t, 4, stderr)

	report := e.intrude(t, intruder, listen)
	select {
	case err := <-exited:
		t.Fatalf("the run ended (%v) before the intruder was done; lengthen it. stderr:\n%s", err, stderr.String())
	default:
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("run failed: %v\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("run still going after 2 minutes; stderr:\n%s", stderr.String())
	}
	job := harness.LoadResult(t, out)
	if !job.Complete {
		t.Errorf("result incomplete: %s", job.Error)
	}
	if err := figures.Check(job); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	checkIntruderReport(t, report)
	checkRejections(t, stderr.String(), e.c.IPs[3])
	e.checkClean(t, 5*time.Second)
}

// buildIntruder builds the hostile client where every node can run it
// (the nodes' /tmp is their own).
func buildIntruder(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "ioswarm-intruder-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "intruder")
	cmd := exec.Command("go", "build", "-o", path, "./testdata/intruder")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build intruder: %v\n%s", err, out)
	}
	return path
}

// intrude runs the intruder on node4 against the coordinator and returns
// its report.
func (e *env) intrude(t *testing.T, intruder, addr string) string {
	t.Helper()
	pids, err := e.c.Processes("node4", e.remoteExe())
	if err != nil || len(pids) != 1 {
		t.Fatalf("rank on node4: %v, %v", pids, err)
	}
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pids[0]))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("\x00--job\x00([0-9a-f]+)\x00").FindSubmatch(argv)
	if m == nil {
		t.Fatalf("no --job in the rank's command line %q", argv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report, err := e.c.Exec(ctx, "node4", intruder, "-addr", addr, "-job", string(m[1]),
		"-hash", e.hash, "-rank", "3", "-idle", "100").CombinedOutput()
	if err != nil {
		t.Fatalf("intruder: %v\n%s", err, report)
	}
	return string(report)
}

func checkIntruderReport(t *testing.T, report string) {
	t.Helper()
	for _, want := range []string{
		"RESULT garbage: closed\n",
		"RESULT oversized: closed\n",
		"RESULT bad-magic: closed\n",
		`RESULT foreign-job: rejected: job "000000000000", coordinator runs job "`,
		"RESULT replay: rejected: rank 3 already joined\n",
		"RESULT idle: 100 of 100 closed by the coordinator, 0 dials failed\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("intruder report lacks %q:\n%s", want, report)
		}
	}
}

// checkRejections looks for the coordinator's log line of every attempt.
func checkRejections(t *testing.T, stderr, from string) {
	t.Helper()
	prefix := "coordinator: rejected connection from " + from + ":"
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, prefix) {
			lines = append(lines, l)
		}
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"exceeds", "bad magic", `job "000000000000"`, "already joined",
		"already in handshake; dropped the oldest", "no hello within the handshake timeout"} {
		if !strings.Contains(all, want) {
			t.Errorf("no rejection logged for %q; stderr:\n%s", want, stderr)
		}
	}
	// Five attempts and a hundred idle connections, each logged once.
	if len(lines) != 105 {
		t.Errorf("%d rejections logged, want 105", len(lines))
	}
	if bytes.Count([]byte(stderr), []byte("rejected connection from")) != len(lines) {
		t.Errorf("connections rejected from elsewhere than %s:\n%s", from, stderr)
	}
}
