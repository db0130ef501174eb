package ssh

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// Six threads over four nodes: placement 2,2,1,1 in host order, figures
// that recompute from the records, the launcher and each node's filesystem
// recorded; then a second run finds every copy in place and copies nothing.
func TestFourNodeRunThenCachedRerun(t *testing.T) {
	e := newEnv(t, 4)
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "6", "--dir", e.dir,
		"--total", "96MiB", "--block", "1MiB", "--output", out}, e.sshFlags()...)
	first := e.head(t, 3*time.Minute, args...)
	if first.Code != 0 {
		t.Fatalf("run exit %d\nstderr:\n%s", first.Code, first.Stderr)
	}
	if !strings.Contains(first.Stderr, "copied to 4, already cached on 0") {
		t.Errorf("first run did not copy to every node; stderr:\n%s", first.Stderr)
	}
	job := harness.LoadResult(t, out)
	checkPlacement(t, job.Hosts)
	if job.Launcher != "ssh" || !job.Complete {
		t.Errorf("launcher %q, complete %v", job.Launcher, job.Complete)
	}
	if err := figures.Check(job); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	e.waitNothingLeft(t, 5*time.Second)

	// The second run: every node holds a verified copy.
	before := map[string]time.Time{}
	for _, node := range e.c.Nodes {
		st, err := os.Stat(e.cachedOn(node))
		if err != nil {
			t.Fatalf("no cached copy on %s: %v", node, err)
		}
		if st.Mode().Perm() != 0o700 {
			t.Errorf("%s: cached copy has mode %v, want 0700", node, st.Mode().Perm())
		}
		before[node] = st.ModTime()
	}
	second := e.head(t, 3*time.Minute, args...)
	if second.Code != 0 {
		t.Fatalf("second run exit %d\nstderr:\n%s", second.Code, second.Stderr)
	}
	if !strings.Contains(second.Stderr, "copied to 0, already cached on 4") {
		t.Errorf("second run copied again; stderr:\n%s", second.Stderr)
	}
	for _, node := range e.c.Nodes {
		if st, err := os.Stat(e.cachedOn(node)); err != nil || !st.ModTime().Equal(before[node]) {
			t.Errorf("%s: the cached copy was rewritten (mtime %v, was %v)", node, st.ModTime(), before[node])
		}
	}
	e.waitNothingLeft(t, 5*time.Second)
}

func checkPlacement(t *testing.T, hosts []result.Host) {
	t.Helper()
	var names []string
	var threads []int
	for _, h := range hosts {
		names = append(names, h.Host)
		threads = append(threads, h.Threads)
		if h.FSType == "" || h.FSType == "unknown" || h.Kernel == "" {
			t.Errorf("host %s: fs_type %q, kernel %q", h.Host, h.FSType, h.Kernel)
		}
		if h.ClockErrorNS <= 0 {
			t.Errorf("host %s: clock error bound %d ns", h.Host, h.ClockErrorNS)
		}
	}
	if !slices.Equal(names, []string{"node1", "node2", "node3", "node4"}) || !slices.Equal(threads, []int{2, 2, 1, 1}) {
		t.Errorf("placement %v %v, want node1..node4 with 2,2,1,1 threads", names, threads)
	}
}

// A node whose host key is not in known_hosts is refused, the host and
// the key's fingerprint named; nothing runs there.
func TestUnknownHostKeyRefused(t *testing.T) {
	e := newEnv(t, 2)
	data, err := os.ReadFile(e.c.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(line, "node2,") {
			keep = append(keep, line)
		}
	}
	known := writeFile(t, "known_hosts", strings.Join(keep, "\n")+"\n")
	config := writeFile(t, "ssh_config", "UserKnownHostsFile "+known+"\n"+readFile(t, e.c.SSHConfig))
	o := e.head(t, time.Minute, "run", "--hosts", e.c.HostsFile, "--threads", "2", "--dir", e.dir,
		"--total", "2MiB", "--block", "1MiB", "--ssh-config", config)
	fp := e.fingerprint(t, "node2")
	if o.Code != 1 || !strings.Contains(o.Stderr, "host node2") || !strings.Contains(o.Stderr, fp) ||
		!strings.Contains(o.Stderr, "not known") {
		t.Fatalf("exit %d, want 1 with node2 and %s named; stderr:\n%s", o.Code, fp, o.Stderr)
	}
	if strings.Contains(o.Stderr, "host node1") {
		t.Errorf("node1, whose key is known, was reported; stderr:\n%s", o.Stderr)
	}
	if _, err := os.Stat(e.cachedOn("node2")); !os.IsNotExist(err) {
		t.Errorf("the binary reached node2 despite its unknown key (stat: %v)", err)
	}
	if left := e.ranksLeft(t); len(left) != 0 {
		t.Errorf("ranks running after the refusal: %v", left)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A node whose link is down fails at the connect timeout, named, instead
// of waiting for the kernel's TCP timeout.
func TestLinkDownFailsWithinConnectTimeout(t *testing.T) {
	e := newEnv(t, 3)
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "3", "--dir", e.dir,
		"--total", "3MiB", "--block", "1MiB", "--connect-timeout", "2s"}, e.sshFlags()...)
	// A first run fills the head's ARP cache, as on a cluster in use: a
	// dial then waits for TCP, not for ARP to give up.
	warm := e.head(t, 2*time.Minute, args...)
	if o := warm; o.Code != 0 {
		t.Fatalf("warm-up run exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	if err := e.c.LinkDown("node3"); err != nil {
		t.Fatal(err)
	}
	defer e.c.LinkUp("node3")
	o := e.head(t, time.Minute, args...)
	if o.Code != 1 || !strings.Contains(o.Stderr, "host node3") || !strings.Contains(o.Stderr, "--connect-timeout") {
		t.Fatalf("exit %d, want 1 naming node3 and the connect timeout; stderr:\n%s", o.Code, o.Stderr)
	}
	// 2 s of timeout and 6 s of slack on an idle machine, plus what the
	// whole warm-up run over the same nodes took just now (a loaded
	// machine slows both alike): far below the minutes a kernel TCP
	// timeout would take.
	if bound := 8*time.Second + warm.Took; o.Took > bound {
		t.Errorf("failed after %v with --connect-timeout 2s, want within %v", o.Took, bound)
	}
	e.waitNothingLeft(t, 5*time.Second)
}

// On a cluster whose nodes share one home directory, a cold launch sends
// the binary once: the other nodes find it through the shared cache,
// verify it themselves, and the next launch copies nothing. Each node
// keeps a stamp of its own beside the one copy. Every node takes one SSH
// session, cold as warm: the one that streams the copy fetches it in the
// session that probed it, and the others probe it again there.
func TestSharedHomeGetsOneCopy(t *testing.T) {
	e := newEnvWith(t, 4, cluster.Options{SharedHome: true})
	sessions := sessionCounter(t, e)
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "8MiB", "--block", "1MiB"}, e.sshFlags()...)
	o := e.head(t, 2*time.Minute, args...)
	if o.Code != 0 || !strings.Contains(o.Stderr, "copied to 1, already cached on 0, found in a home shared with a node copied to on 3") {
		t.Fatalf("cold run on a shared home: exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	for _, node := range e.c.Nodes {
		if n := sessions(node); n != 1 {
			t.Errorf("cold run on a shared home: %d SSH sessions on %s, want 1", n, node)
		}
	}
	o = e.head(t, 2*time.Minute, args...)
	if o.Code != 0 || !strings.Contains(o.Stderr, "copied to 0, already cached on 4") {
		t.Fatalf("warm run on a shared home: exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	stamps, _ := filepath.Glob(e.cachedOn("node1") + ".verified.*")
	if len(stamps) != 4 {
		t.Errorf("stamps beside the shared copy: %q, want one per node", stamps)
	}
	e.checkClean(t, 5*time.Second)
}
