package launcher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

// fakeSlurm is a set of stand-ins for srun, sbcast and scontrol: shell
// scripts that log their arguments (one call per line) and then do on this
// machine what the real tools would do on a node. The real tools are
// exercised by test/slurmrun against a real cluster.
type fakeSlurm struct {
	dir   string
	tools SlurmTools
}

// fakeSrunScript skips srun's options and runs the command itself, once
// per task of --ntasks, all on this machine and sharing srun's input;
// $0.fail, when it exists, makes it print srun's launch failure instead.
const fakeSrunScript = `#!/bin/sh
echo "$*" >> "$0.calls"
if [ -e "$0.fail" ]; then cat "$0.fail" >&2; exit 233; fi
n=1
while [ $# -gt 0 ]; do case $1 in --ntasks=*) n=${1#--ntasks=}; shift;; --*) shift;; *) break;; esac; done
[ "$n" -gt 1 ] || exec "$@"
exec 3<&0 # a job in the background would otherwise read /dev/null
i=0
while [ $i -lt $n ]; do "$@" <&3 3<&- & i=$((i + 1)); done
exec 3<&-
wait
`

// fakeSbcastScript copies the file, as sbcast --force --preserve does on
// every node; $0.fail replaces that with sbcast's error output.
const fakeSbcastScript = `#!/bin/sh
echo "$*" >> "$0.calls"
if [ -e "$0.fail" ]; then cat "$0.fail" >&2; exit 1; fi
cp -p "$3" "$4"
`

func newFakeSlurm(t *testing.T, scontrolOut string) *fakeSlurm {
	t.Helper()
	dir := t.TempDir()
	f := &fakeSlurm{dir: dir, tools: SlurmTools{
		Srun: filepath.Join(dir, "srun"), Sbcast: filepath.Join(dir, "sbcast"), Scontrol: filepath.Join(dir, "scontrol"),
	}}
	writeExec(t, f.tools.Srun, fakeSrunScript)
	writeExec(t, f.tools.Sbcast, fakeSbcastScript)
	out := filepath.Join(dir, "scontrol.out")
	if err := os.WriteFile(out, []byte(scontrolOut), 0o644); err != nil {
		t.Fatal(err)
	}
	writeExec(t, f.tools.Scontrol, "#!/bin/sh\necho \"$*\" >> \"$0.calls\"\ncat "+out+"\n")
	return f
}

// fail makes the fake tool print lines on its standard error and fail.
func (f *fakeSlurm) fail(t *testing.T, tool, lines string) {
	t.Helper()
	if err := os.WriteFile(tool+".fail", []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
}

// calls lists the argument lines a fake tool was called with.
func (f *fakeSlurm) calls(t *testing.T, tool string) []string {
	t.Helper()
	data, err := os.ReadFile(tool + ".calls")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func writeExec(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after a generous
// bound (this is not a timing test; the bound only catches a hang).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testSrun is a launcher on the fake tools, prepared with --remote-bin set
// to exe so that no copy is made.
func testSrun(t *testing.T, f *fakeSlurm, exe string, log *testio.LockedBuffer, nodes ...string) *Srun {
	t.Helper()
	l := &Srun{Binary: exe, RemoteBin: exe, Advertise: "127.0.0.1", Alloc: Allocation{JobID: "42", Nodes: nodes},
		Tools: f.tools, Log: NewLineWriter(log), Grace: 600 * time.Millisecond}
	t.Cleanup(func() { l.Close() })
	if _, err := l.Prepare(context.Background(), l.Alloc.Targets()); err != nil {
		t.Fatal(err)
	}
	return l
}

// rankScript stands in for `ioswarm rank`: it reports its arguments and the
// secret line, then waits for the end of its input, as a rank does.
const rankScript = `#!/bin/sh
read secret
echo "args: $* secret: $secret" >&2
cat >/dev/null
echo "input closed" >&2
`

func TestSrunStartPassesSecretAndClosedInputEndsTheRank(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "rank.sh")
	writeExec(t, exe, rankScript)
	var log testio.LockedBuffer
	l := testSrun(t, f, exe, &log, "n1", "n2")
	p, err := l.Start(context.Background(), Target{Rank: 1, Host: "n2"}, []string{"--rank", "1"}, []byte("s3cret\n"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rank to report its secret", func() bool {
		return strings.Contains(log.String(), "[n2 rank 1] args: rank --rank 1 secret: s3cret\n")
	})
	select {
	case <-p.Done():
		t.Fatalf("rank ended while its input was open: %v; log:\n%s", p.Err(), log.String())
	default:
	}
	p.Stop()
	if err := p.Err(); err != nil {
		t.Errorf("rank that ended at end of input: Err = %v, want nil", err)
	}
	if !strings.Contains(log.String(), "[n2 rank 1] input closed\n") {
		t.Errorf("rank did not see its input close; log:\n%s", log.String())
	}
	calls := f.calls(t, f.tools.Srun)
	want := strings.Join(stepArgs("n2", "ioswarm", exe, []string{"rank", "--rank", "1"}), " ")
	if !slices.Contains(calls, want) {
		t.Errorf("srun calls %q, want one of %q", calls, want)
	}
}

func TestSrunStopSignalsThenKills(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "stubborn.sh")
	// Ignores the end of its input and SIGTERM: only SIGKILL ends it.
	writeExec(t, exe, "#!/bin/sh\ntrap '' TERM\necho started >&2\nwhile :; do sleep 0.05; done\n")
	var log testio.LockedBuffer
	l := testSrun(t, f, exe, &log, "n1")
	p, err := l.Start(context.Background(), Target{Rank: 0, Host: "n1"}, nil, []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rank to start", func() bool { return strings.Contains(log.String(), "started") })
	stopped := make(chan struct{})
	go func() { p.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not end a rank that ignores SIGTERM")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Err after SIGKILL = %v, want it to say killed", err)
	}
}

func TestSrunLaunchFailureNamesNodeAndMarksItDown(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "rank.sh")
	writeExec(t, exe, rankScript)
	var log testio.LockedBuffer
	l := testSrun(t, f, exe, &log, "n1", "n3")
	f.fail(t, f.tools.Srun, "srun: error: Task launch for StepId=5.2 failed on node n3: Communication connection failure\n"+
		"srun: error: Application launch failed: Communication connection failure\n")
	p, err := l.Start(context.Background(), Target{Rank: 1, Host: "n3"}, nil, []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	err = p.Err()
	want := "srun: exit status 233: srun: error: Task launch for StepId=5.2 failed on node n3: Communication connection failure"
	if err == nil || err.Error() != want {
		t.Errorf("Err = %v, want %q", err, want)
	}
	if !strings.Contains(log.String(), "[n3 rank 1] srun: error: Application launch failed") {
		t.Errorf("srun's own lines were not forwarded; log:\n%s", log.String())
	}
	before := len(f.calls(t, f.tools.Srun))
	if _, err := l.Exec(context.Background(), Target{Rank: 1, Host: "n3"}, []string{"cleanup"}); err == nil ||
		!strings.Contains(err.Error(), "host n3: node unreachable") {
		t.Errorf("Exec on the node that failed = %v, want a node unreachable error", err)
	}
	if _, err := l.Start(context.Background(), Target{Rank: 1, Host: "n3"}, nil, nil); err == nil {
		t.Error("Start on the node that failed succeeded")
	}
	if got := len(f.calls(t, f.tools.Srun)); got != before {
		t.Errorf("srun was called %d more times for a node known to be down", got-before)
	}
}

func TestSrunExecReturnsOutputOrTheTasksLastWords(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "tool.sh")
	writeExec(t, exe, "#!/bin/sh\nif [ \"$1\" = bad ]; then echo noise >&2; echo \"cannot remove /x: busy\" >&2; exit 3; fi\necho \"out: $*\"\n")
	var log testio.LockedBuffer
	l := testSrun(t, f, exe, &log, "n1")
	out, err := l.Exec(context.Background(), Target{Host: "n1"}, []string{"good", "--dir", "/d"})
	if err != nil || string(out) != "out: good --dir /d\n" {
		t.Errorf("Exec = %q, %v; want the tool's output", out, err)
	}
	_, err = l.Exec(context.Background(), Target{Host: "n1"}, []string{"bad"})
	want := "host n1: " + exe + " bad: srun: exit status 3: cannot remove /x: busy"
	if err == nil || err.Error() != want {
		t.Errorf("failing Exec = %v, want %q", err, want)
	}
}

func TestSrunCloseStopsRanksStillRunning(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "rank.sh")
	writeExec(t, exe, rankScript)
	var log testio.LockedBuffer
	l := testSrun(t, f, exe, &log, "n1", "n2")
	var procs []Proc
	for i, n := range []string{"n1", "n2"} {
		p, err := l.Start(context.Background(), Target{Rank: i, Host: n}, nil, []byte("x\n"))
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		select {
		case <-p.Done():
		default:
			t.Errorf("rank %d still runs after Close", i)
		}
	}
	if _, err := l.Start(context.Background(), Target{Rank: 0, Host: "n1"}, nil, []byte("x\n")); err == nil {
		t.Error("Start after Close succeeded")
	}
}
