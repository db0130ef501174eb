package ssh

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// IOzone's stonewall over a -+m threadlist: one thread per rank, so a
// thread that its own rank did not stop was stopped by another rank's word,
// relayed by the coordinator. Every thread either raised the stop and is
// counted whole, or counted less than its file and ended after the stop
// was raised, its fsync inside its time. Were the word not relayed, each
// rank's only thread would run to its end and raise a stop of its own:
// the test asks for at least one thread stopped, which only needs one of
// eight threads to come to a record boundary after another had finished
// its 2048 records and a network hop more.
func TestIOzoneStonewallReachesEveryClient(t *testing.T) {
	e := newEnv(t, 4)
	threadlist := filepath.Join(t.TempDir(), "threadlist")
	var lines []string
	for i := 0; i < 8; i++ {
		lines = append(lines, fmt.Sprintf("%s %s /usr/local/bin/iozone", e.c.Nodes[i%4], e.dir))
	}
	if err := os.WriteFile(threadlist, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A busy machine can let all eight threads finish before the word
	// reaches any (each then raises its own stop); a relay that does not
	// work leaves every try so. Up to three tries, one must show a thread
	// stopped by another rank's word.
	for try := 1; try <= 3; try++ {
		if stonewallTry(t, e, threadlist) > 0 {
			return
		}
		t.Logf("try %d: every thread ended before another rank's stop reached it", try)
	}
	t.Errorf("in three tries no thread was stopped by a stop another rank raised: want the word to reach the other ranks")
}

// stonewallTry runs the line once, checks each thread's record as IOzone
// stops a child, and returns how many threads another rank's stop ended.
func stonewallTry(t *testing.T, e *env, threadlist string) int {
	t.Helper()
	out := filepath.Join(t.TempDir(), "w.json")
	args := append([]string{"iozone", "-i0", "-c", "-e", "-r", "4k", "-s", "8m", "-t", "8", "-+n", "-+m", threadlist},
		append(e.sshFlags(), "--output", out)...)
	res := e.head(t, 3*time.Minute, args...)
	if res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	job := harness.LoadResult(t, out)
	p := job.Phases[0]
	if len(job.Hosts) != 8 || len(p.Threads) != 8 {
		t.Fatalf("%d ranks, %d threads; want one thread on each of 8 ranks", len(job.Hosts), len(p.Threads))
	}
	const file, record = 8 << 20, 4 << 10
	var raised int64
	for _, th := range p.Threads {
		if th.RaisedStopNS != 0 && (raised == 0 || th.RaisedStopNS < raised) {
			raised = th.RaisedStopNS
		}
	}
	stopped := 0
	for _, th := range p.Threads {
		what := fmt.Sprintf("thread %d on %s: xfer %d of %d, end %d, fsync %d ns; stop raised at %d",
			th.Thread, th.Host, th.StonewallBytes, file, th.StonewallEndNS, th.FsyncNS, raised)
		switch {
		case th.RaisedStopNS != 0:
			if th.StonewallBytes != file {
				t.Errorf("raised the stop but not counted whole: %s", what)
			}
		case th.StonewallBytes > file-record || th.StonewallEndNS < raised || th.FsyncNS <= 0:
			t.Errorf("stopped, but not as IOzone stops a child: %s", what)
		default:
			stopped++
		}
	}
	if raised == 0 {
		t.Fatalf("no thread raised the stop")
	}
	t.Logf("%d of 8 threads were stopped by a stop another rank raised", stopped)
	return stopped
}
