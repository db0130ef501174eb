package ssh

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// Real IOzone and ioswarm iozone on the same -+m command lines over the
// same 4 nodes: the same stdout lines once values are masked and the
// same counts of IOzone's patterns. IOzone starts its clients with the
// command RSH names (ssh with the bed's key) and is told the head's
// address with -+h, since its clients connect back to it; ioswarm gets
// the same -+h, where its ranks dial the coordinator, and prints the same
// "Hostname =" line.
func TestIOzoneClusterStdoutMatchesRealIOzone(t *testing.T) {
	real, err := exec.LookPath("iozone")
	if err != nil {
		t.Skip("iozone not installed (scripts/install-iozone.sh installs Debian's iozone3)")
	}
	e := newEnv(t, 4)
	ours, theirs := filepath.Join(e.dir, "ioswarm"), filepath.Join(e.dir, "iozone")
	for _, d := range []string{ours, theirs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var byName, byIP []string
	for i, node := range e.c.Nodes {
		byName = append(byName, fmt.Sprintf("%s %s /usr/local/bin/iozone", node, ours))
		byIP = append(byIP, fmt.Sprintf("%s %s %s", e.c.IPs[i], theirs, real))
	}
	tmp := t.TempDir()
	ourList, theirList, rsh := filepath.Join(tmp, "ours"), filepath.Join(tmp, "theirs"), filepath.Join(tmp, "rsh")
	writeMode(t, ourList, strings.Join(byName, "\n")+"\n", 0o644)
	writeMode(t, theirList, strings.Join(byIP, "\n")+"\n", 0o644)
	writeMode(t, rsh, fmt.Sprintf("#!/bin/sh\nexec ssh -i %s -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o BatchMode=yes -l root \"$@\"\n",
		e.c.Identity, e.c.KnownHosts), 0o755)

	steps := []string{
		"-i0 -c -e -w -r 64k -s 1m -t 4 -+n -R",
		"-i1 -w -r 64k -s 1m -t 4 -R -C",
		"-i2 -O -r 64k -s 1m -t 4 -+n -R",         // no -w: "Test cleanup:"
		"-i0 -i1 -r 64k -s 1m -t 4 -+n -+u -R -C", // -+u: the clients' CPU times in IOzone's lines
	}
	for _, step := range steps {
		args := append(append([]string{"iozone"}, strings.Fields(step)...), "-+m", ourList, "-+h", e.c.HeadIP)
		res := e.head(t, 3*time.Minute, append(args, e.sshFlags()...)...)
		if res.Code != 0 {
			t.Fatalf("ioswarm iozone %s: exit %d\n%s", step, res.Code, res.Stderr)
		}
		if want := fmt.Sprintf("--listen %s:0", e.c.HeadIP); !strings.Contains(res.Stderr, want) {
			t.Errorf("%s -+h %s: the equivalent run line lacks %q:\n%s", step, e.c.HeadIP, want, res.Stderr)
		}
		want := runRealIOzoneOnBed(t, e, real, rsh, append(strings.Fields(step), "-+m", theirList, "-+h", e.c.HeadIP))
		compareClusterStdout(t, step, res.Stdout, want)
	}
}

func writeMode(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// runRealIOzoneOnBed runs IOzone in the head's namespace and returns its
// stdout.
func runRealIOzoneOnBed(t *testing.T, e *env, real, rsh string, args []string) string {
	t.Helper()
	cmd := e.c.Head(context.Background(), real, args...)
	cmd.Env = append(os.Environ(), "RSH="+rsh)
	o := harness.RunCmd(t, cmd, 4*time.Minute)
	if o.Code != 0 {
		t.Fatalf("iozone %s: exit %d\n%s%s", strings.Join(args, " "), o.Code, o.Stdout, o.Stderr)
	}
	return o.Stdout
}

var (
	clusterValueRE = regexp.MustCompile(` *-?[0-9]+\.[0-9]+`)
	clusterRunRE   = regexp.MustCompile(`(Run began:|Command line used:) .*`)
)

func compareClusterStdout(t *testing.T, step, ours, theirs string) {
	t.Helper()
	mask := func(s string) []string {
		s = clusterRunRE.ReplaceAllString(s, "$1 ...")
		return strings.Split(clusterValueRE.ReplaceAllString(s, " #"), "\n")
	}
	if o, r := mask(ours), mask(theirs); !slices.Equal(o, r) {
		t.Errorf("%s: stdout differs from IOzone's (values masked)\n--- ioswarm ---\n%s\n--- iozone ---\n%s",
			step, strings.Join(o, "\n"), strings.Join(r, "\n"))
	}
	for _, p := range []string{"Children see", "Parent sees", "kB/sec", "ops/sec", "Min xfer", "Child[",
		"Test running:", "Test cleanup:", "iozone test complete.", "CPU Utilization:", "CPU utilization:", "wall="} {
		if a, b := strings.Count(ours, p), strings.Count(theirs, p); a != b {
			t.Errorf("%s: %d lines with %q, IOzone has %d", step, a, p, b)
		}
	}
}
