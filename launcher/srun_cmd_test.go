package launcher

import (
	"slices"
	"strings"
	"testing"
)

func TestStepArgs(t *testing.T) {
	got := stepArgs("node07", "ioswarm", "/tmp/ioswarm-9-abc", []string{"rank", "--connect", "10.0.0.1:4000", "--host", "node07"})
	want := []string{
		"--nodes=1", "--ntasks=1", "--ntasks-per-node=1", "--nodelist=node07", "--overlap", "--kill-on-bad-exit=1",
		"--mpi=none", "--job-name=ioswarm", "--quiet",
		"/tmp/ioswarm-9-abc", "rank", "--connect", "10.0.0.1:4000", "--host", "node07",
	}
	if !slices.Equal(got, want) {
		t.Errorf("stepArgs =\n %q\nwant\n %q", got, want)
	}
}

func TestRemoveArgsFoldsTheNodeList(t *testing.T) {
	got := removeArgs([]string{"n01", "n02", "n03", "gpu1"}, "/tmp/ioswarm-9-abc")
	want := []string{
		"--nodes=4", "--ntasks=4", "--ntasks-per-node=1", "--nodelist=n[01-03],gpu1", "--overlap", "--mpi=none",
		"--job-name=ioswarm-cleanup", "--quiet", "rm", "-f", "/tmp/ioswarm-9-abc",
	}
	if !slices.Equal(got, want) {
		t.Errorf("removeArgs =\n %q\nwant\n %q", got, want)
	}
}

func TestBcastPath(t *testing.T) {
	hash := "8e28f2a380b2ffffffffffffffffffffffffffffffffffffffffffffffffffff"
	cases := []struct{ dir, job, want string }{
		{"", "1234", "/tmp/ioswarm-1234-8e28f2a380b2"},
		{"/local/scratch/", "77", "/local/scratch/ioswarm-77-8e28f2a380b2"},
		{"/tmp", "12/../x y", "/tmp/ioswarm-12_.._x_y-8e28f2a380b2"},
	}
	for _, c := range cases {
		if got := bcastPath(c.dir, c.job, hash); got != c.want {
			t.Errorf("bcastPath(%q, %q) = %q, want %q", c.dir, c.job, got, c.want)
		}
	}
}

// A line as scontrol 22.05 prints it: OS= holds spaces, NodeAddr is not
// where a naive split would look for it.
const scontrolNodes = `NodeName=node1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 NodeAddr=10.78.1.1 NodeHostName=node1 Version=22.05.8 OS=Linux 6.1 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=1 State=IDLE
NodeName=node2 Arch=x86_64 NodeAddr=node2-ib NodeHostName=node2 OS=Linux 6.1 State=ALLOCATED

NodeName=node3 Arch=x86_64 State=DOWN
`

func TestNodeAddrs(t *testing.T) {
	got := nodeAddrs(scontrolNodes)
	want := map[string]string{"node1": "10.78.1.1", "node2": "node2-ib"}
	if len(got) != len(want) || got["node1"] != want["node1"] || got["node2"] != want["node2"] {
		t.Errorf("nodeAddrs = %v, want %v", got, want)
	}
}

func TestFailedNodes(t *testing.T) {
	cases := []struct {
		stderr string
		want   []string
	}{
		{"sbcast: error: REQUEST_FILE_BCAST(node3): Communication connection failure\n", []string{"node3"}},
		{"sbcast: error: REQUEST_FILE_BCAST(node3): x\nsbcast: error: REQUEST_FILE_BCAST(node10): y\n" +
			"sbcast: error: REQUEST_FILE_BCAST(node3): again\n", []string{"node3", "node10"}},
		{"srun: error: Task launch for StepId=5.0 failed on node node3: Communication connection failure\n" +
			"srun: error: Application launch failed: Communication connection failure\n", []string{"node3"}},
		{"srun: error: Unable to create step for job 5: Invalid node name specified\n", nil},
		{"", nil},
	}
	for _, c := range cases {
		if got := failedNodes(c.stderr); !slices.Equal(got, c.want) {
			t.Errorf("failedNodes(%q) = %q, want %q", c.stderr, got, c.want)
		}
	}
}

func TestSummaryPrefersTheToolsErrorThenTheTasksLastWords(t *testing.T) {
	cases := []struct{ lines, want string }{
		{"srun: error: Task launch for StepId=5.0 failed on node node3: refused\nsrun: error: Application launch failed: refused",
			"srun: error: Task launch for StepId=5.0 failed on node node3: refused"},
		{"starting\nerror: cannot create /d/ioswarm-x: permission denied\nsrun: error: node2: task 0: Exited with exit code 1",
			"error: cannot create /d/ioswarm-x: permission denied"},
		{"srun: error: node2: task 0: Killed", "srun: error: node2: task 0: Killed"},
		{"slurmstepd-node2: error: *** STEP 3.0 ON node2 CANCELLED AT 2026-01-01T00:00:00 ***\nsrun: error: node2: task 0: Killed",
			"slurmstepd-node2: error: *** STEP 3.0 ON node2 CANCELLED AT 2026-01-01T00:00:00 ***"},
		{"", ""},
	}
	for _, c := range cases {
		if got := summary(c.lines); got != c.want {
			t.Errorf("summary(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}

func TestLastLinesKeepsTheEndAcrossWrites(t *testing.T) {
	var w lastLines
	for _, chunk := range []string{"one\ntw", "o\n\n  \nthree\nfour\nfi", "ve\nsix"} {
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if got, want := w.String(), "two\nthree\nfour\nfive\nsix"; got != want {
		t.Errorf("lastLines = %q, want %q", got, want)
	}
	var long lastLines
	long.Write([]byte(strings.Repeat("x", 10000)))
	if got := len(long.String()); got != 4096 {
		t.Errorf("a line without end kept %d bytes, want its last 4096", got)
	}
}
