package ssh

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/internal/testio"
	"ioswarm/test/harness"
)

// A hostile process on a node (built from testdata/intruder) connects to
// the coordinator's pinned port mid-run: an HTTP request, an oversized
// frame, a Hello that is not ioswarm's, a Hello of the first protocol
// version, Hellos of the current version with a guessed proof for this
// job and for another, then 100 idle connections. Each is refused; the
// refusals name neither the job nor the build; the coordinator's log
// counts them in a few lines per source instead of a line each; the run
// completes with figures that recompute.
//
// The intruder reads the job ID from a rank's command line, as anyone on
// the node can; it cannot learn the secret, which travels on the rank's
// standard input (with the port, which is no longer on the command line).
func TestIntrudersRejected(t *testing.T) {
	e := newEnv(t, 4)
	intruder := buildIntruder(t)
	listen := e.c.HeadIP + ":7411"
	out := filepath.Join(t.TempDir(), "result.json")
	// The run must outlast the intruder, whose idle connections are
	// refused only after the 5 s handshake timeout: 80 iterations take
	// about 15 s here (30 did when every phase waited 200 ms for its
	// release; with the measured lead they took 5.6 s, and the run ended
	// while the idle connections were still open).
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--iterations", "80", "--drop-caches", "off",
		"--listen", listen, "--output", out}, e.sshFlags()...)
	cmd := e.c.Head(context.Background(), e.bin, args...)
	stderr := &testio.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	e.waitThreadFiles(t, 4, stderr)

	report, jobID := e.intrude(t, intruder, listen)
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
	checkIntruderReport(t, report, jobID, e.hash)
	checkRejections(t, stderr.String(), e.c.IPs[3], 106)
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
// its report and the job ID it found.
func (e *env) intrude(t *testing.T, intruder, addr string) (string, string) {
	t.Helper()
	job := e.jobOnNode(t, "node4")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report, err := e.c.Exec(ctx, "node4", intruder, "-addr", addr, "-job", job,
		"-hash", e.hash, "-rank", "3", "-idle", "100").CombinedOutput()
	if err != nil {
		t.Fatalf("intruder: %v\n%s", err, report)
	}
	return string(report), job
}

// jobOnNode reads the job ID from the command line of the rank on node,
// as any user of the node can, and checks the line holds no port.
func (e *env) jobOnNode(t *testing.T, node string) string {
	t.Helper()
	pids, err := e.c.Processes(node, e.remoteExe())
	if err != nil || len(pids) != 1 {
		t.Fatalf("rank on %s: %v, %v", node, pids, err)
	}
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pids[0]))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(argv, []byte("--connect")) || regexp.MustCompile(`:\d{2,5}\x00`).Match(argv) {
		t.Errorf("the rank's command line shows an address: %q", argv)
	}
	m := regexp.MustCompile("\x00--job\x00([0-9a-f]+)\x00").FindSubmatch(argv)
	if m == nil {
		t.Fatalf("no --job in the rank's command line %q", argv)
	}
	return string(m[1])
}

func checkIntruderReport(t *testing.T, report, job, hash string) {
	t.Helper()
	refused := "rejected: not admitted: the hello does not prove this job's secret\n"
	for _, want := range []string{
		"RESULT garbage: closed\n",
		"RESULT oversized: closed\n",
		"RESULT bad-magic: closed\n",
		"RESULT version-1: rejected: protocol version 1, coordinator speaks 2\n",
		"RESULT guessed-proof: " + refused,
		"RESULT foreign-job: " + refused,
		"RESULT idle: 100 of 100 closed by the coordinator, 0 dials failed\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("intruder report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, job) || strings.Contains(report, hash[:12]) {
		t.Errorf("a refusal gave away the job ID or the build hash:\n%s", report)
	}
}

// refusedLine matches the coordinator's lines about refused strangers:
// the first refusal from a source, then summaries of what came since.
var refusedLine = regexp.MustCompile(`^coordinator: refused (a connection|(\d+) more connections?) from (\S+)(:| in the last)`)

// checkRejections adds up the coordinator's lines about refusals from
// the address from: want connections in all, in a few lines rather than
// one each, and every kind of attempt named.
func checkRejections(t *testing.T, stderr, from string, want int) {
	t.Helper()
	total := 0
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		m := refusedLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[3] != from {
			t.Errorf("refusal of a source other than %s: %s", from, l)
			continue
		}
		lines = append(lines, l)
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		total += n
	}
	all := strings.Join(lines, "\n")
	if total != want || len(lines) > 12 {
		t.Errorf("%d refusals in %d lines, want %d in a few:\n%s", total, len(lines), want, all)
	}
	for _, why := range []string{"oversized first frame", "not an ioswarm hello", "another protocol version",
		"no proof of the job secret", "dropped: too many connections from its address", "sent no hello"} {
		if !strings.Contains(all, why) {
			t.Errorf("no refusal counted as %q:\n%s", why, all)
		}
	}
}
