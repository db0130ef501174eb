package ssh

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/test/harness"
)

// shortArgs is a run of a few seconds at most: tiny data, one phase.
func (e *env) shortArgs(extra ...string) []string {
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "4MiB", "--block", "1MiB", "--phases", "write", "--drop-caches", "off"}, e.sshFlags()...)
	return append(args, extra...)
}

// A stranger on node4 floods the coordinator's pinned port with
// connections (most closed at once, some sending a frame that is no Hello,
// some held idle) through twenty runs: every run's ranks join and the run
// succeeds. The coordinator used to drop a rank mid-handshake to make room
// for strangers, failing about half such runs.
func TestFloodDuringJoin(t *testing.T) {
	e := newEnv(t, 4)
	intruder := buildIntruder(t)
	listen := e.c.HeadIP + ":7412"
	if o := e.head(t, 2*time.Minute, e.shortArgs()...); o.Code != 0 { // the copies: later runs are warm
		t.Fatalf("first run: exit %d\n%s", o.Code, o.Stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flood := e.c.Exec(ctx, "node4", intruder, "-addr", listen, "-flood", "10m")
	out := &testio.LockedBuffer{}
	flood.Stdout, flood.Stderr = out, out
	if err := flood.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = flood.Process.Kill(); _ = flood.Wait() }()

	const runs = 20
	failed := 0
	var refused []int
	begin := time.Now()
	for i := range runs {
		out := filepath.Join(t.TempDir(), "r.json")
		o := e.head(t, time.Minute, e.shortArgs("--listen", listen, "--output", out)...)
		if o.Code != 0 {
			failed++
			t.Errorf("run %d under the flood: exit %d\n%s", i, o.Code, o.Stderr)
			continue
		}
		// The result file counts the refusals by source.
		if job := harness.LoadResult(t, out); job.RejectedConnections[e.c.IPs[3]] == 0 {
			t.Errorf("run %d: rejected_connections %v names no refusal from %s", i, job.RejectedConnections, e.c.IPs[3])
		}
		if !strings.Contains(o.Stderr, "coordinator: refused a connection from "+e.c.IPs[3]) {
			t.Errorf("run %d: no refusal logged, so the flood missed the join:\n%s", i, o.Stderr)
		}
		if n := strings.Count(o.Stderr, "coordinator: refused"); n > 6 {
			t.Errorf("run %d: %d lines about refusals in a run of %v", i, n, o.Took)
		}
		refused = append(refused, countRefused(o.Stderr))
	}
	t.Logf("%d runs under the flood in %v, %d failed; connections refused per run: %v",
		runs, time.Since(begin).Round(time.Millisecond), failed, refused)
	_ = flood.Process.Kill()
	_ = flood.Wait()
	e.checkClean(t, 5*time.Second)
}

// countRefused adds up the refusals the coordinator's log lines count.
func countRefused(stderr string) int {
	total := 0
	for _, l := range strings.Split(stderr, "\n") {
		if m := refusedLine.FindStringSubmatch(l); m != nil {
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			total += n
		}
	}
	return total
}

// plantOn writes data as node's cached copy of this build, with a stamp
// that vouches for it as the probe would have written it, so the probe
// believes the copy verified without reading it. dirMode is the mode of
// the copy's directory.
func (e *env) plantOn(t *testing.T, node string, data []byte, dirMode os.FileMode) {
	t.Helper()
	exe := e.cachedOn(node)
	dir := filepath.Dir(exe)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := exe + ".planting"
	if err := os.WriteFile(tmp, data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, exe); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		t.Fatal(err)
	}
	fid := strings.TrimSpace(e.onNode(t, node, "stat", "-c", "%d %i %s %y %z", e.remoteExe()))
	name := strings.TrimSpace(e.onNode(t, node, "cat", "/proc/sys/kernel/hostname"))
	if err := os.WriteFile(exe+".verified."+name, []byte(e.hash+" "+fid+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Someone who can write to node2's cache directory (mode 777) plants a
// program under the cached binary's name with a stamp that matches it.
// The launcher refuses the cache, naming the directory and the fix, and
// the planted program never runs, so it never reads a job secret.
func TestPlantedBinaryRefused(t *testing.T) {
	e := newEnv(t, 4)
	leak := e.dir + ".leak"
	t.Cleanup(func() { os.Remove(leak) })
	e.plantOn(t, "node2", []byte("#!/bin/sh\ncat >"+leak+"\n"), 0o777)
	o := e.head(t, 2*time.Minute, e.shortArgs()...)
	want := "host node2 rank 1: refusing the ioswarm cache: /root/.cache/ioswarm/" + e.hash + " has mode 777"
	if o.Code == 0 || !strings.Contains(o.Stderr, want) || !strings.Contains(o.Stderr, "rm -rf /root/.cache/ioswarm/"+e.hash) {
		t.Fatalf("exit %d; want a refusal %q\nstderr:\n%s", o.Code, want, o.Stderr)
	}
	if _, err := os.Stat(leak); !os.IsNotExist(err) {
		t.Errorf("the planted program ran (stat %s: %v)", leak, err)
	}
	e.checkClean(t, 5*time.Second)
}

// Node2's cached binary is swapped, after the launcher's check and before
// the start, for a build that runs but is not this one (the same program
// with bytes appended): private, with a stamp that vouches for it. The
// rank hashes its own running image and proves that hash; the coordinator
// refuses it, naming node2 and both hashes in its own log, and the run
// fails instead of running another build.
func TestSwappedBinaryCaughtByTheRanksOwnHash(t *testing.T) {
	e := newEnv(t, 4)
	if o := e.head(t, 2*time.Minute, e.shortArgs()...); o.Code != 0 {
		t.Fatalf("first run: exit %d\n%s", o.Code, o.Stderr)
	}
	data, err := os.ReadFile(e.bin)
	if err != nil {
		t.Fatal(err)
	}
	swapped := append(data, []byte("\x00not this build")...)
	sum := sha256.Sum256(swapped)
	other := hex.EncodeToString(sum[:])
	e.plantOn(t, "node2", swapped, 0o700)
	o := e.head(t, 2*time.Minute, e.shortArgs()...)
	for _, want := range []string{
		`coordinator: refused host "node2" rank 1 from ` + e.c.IPs[1],
		"its running binary has sha256 " + other[:12] + ", not the coordinator's " + e.hash[:12],
		"[node2 rank 1] ", "this rank's binary (sha256 " + other[:12] + ") is not the coordinator's build",
	} {
		if !strings.Contains(o.Stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if o.Code == 0 || t.Failed() {
		t.Fatalf("exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	e.checkClean(t, 5*time.Second)
}

// SIGKILL of the coordinator while it copies the binary to the nodes for
// the first time (node1's link slowed so that the copy lasts), then a
// normal run: no partial copy is left in any node's cache. One more is
// planted first, as a copying shell killed outright would leave it, with
// no trap run: the next run recognises it by name and removes it.
func TestKilledColdCopyLeavesNoPartial(t *testing.T) {
	e := newEnv(t, 4)
	if err := e.c.Delay("node1", 20*time.Millisecond); err != nil {
		t.Fatalf("slowing node1's link: %v", err)
	}
	cmd := e.c.Head(context.Background(), e.bin, e.shortArgs()...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := harness.Poll(60*time.Second, 2*time.Millisecond, func() bool { return len(e.partials(t)) > 0 })
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !seen {
		t.Fatal("no partial copy appeared during the cold copy")
	}
	t.Logf("partial copies when the coordinator was killed: %v", e.partials(t))

	build := filepath.Dir(e.cachedOn("node3"))
	if err := os.MkdirAll(build, 0o700); err != nil {
		t.Fatal(err)
	}
	abandoned := filepath.Join(build, fmt.Sprintf(".ioswarm.part.node3.%d", deadPID(t)))
	if err := os.WriteFile(abandoned, []byte("half a binary"), 0o600); err != nil {
		t.Fatal(err)
	}

	if o := e.head(t, 2*time.Minute, e.shortArgs()...); o.Code != 0 {
		t.Fatalf("the run after: exit %d\n%s", o.Code, o.Stderr)
	}
	if left := e.partials(t); len(left) > 0 {
		t.Errorf("partial copies left after a normal run: %v", left)
	}
	e.checkClean(t, 5*time.Second)
}

// partials lists every ".ioswarm.*" file in the nodes' caches.
func (e *env) partials(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, node := range e.c.Nodes {
		cache := filepath.Dir(filepath.Dir(e.cachedOn(node)))
		found, _ := filepath.Glob(filepath.Join(cache, "*", ".ioswarm.*"))
		out = append(out, found...)
	}
	return out
}

// deadPID is a PID no process holds (the nodes share the machine's PIDs).
func deadPID(t *testing.T) int {
	t.Helper()
	for pid := 4_000_000; pid > 3_000_000; pid -= 7 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			return pid
		}
	}
	t.Fatal("no free PID")
	return 0
}
