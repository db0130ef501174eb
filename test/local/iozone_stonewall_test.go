package local

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"ioswarm/result"
)

// IOzone's stonewall, live, over two ranks: the thread that completed its
// last record first raised the stop, and is counted whole; every other
// thread counted less than its file, stopped after the stop was raised,
// with its fsync inside its own time. A rank runs two of the four
// threads and at most one of them can raise the stop, so at least two
// are stopped, on the raiser's rank by the shared flag and on the other
// by the coordinator's relay (unless its own thread had raised it first).
// Which thread finishes first is left to the machine: the test asserts
// what holds whichever it is. The stopped writers finished their files
// untimed: a later -x read with --verify reads them whole.
func TestIOzoneLiveStonewall(t *testing.T) {
	const file, record = 4 << 20, 4 << 10
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "w.json")
	stdout, stderr, code := runIn(t, dir, "iozone", "-i0", "-w", "-c", "-e", "-r", "4k", "-s", "4m", "-t", "4", "-+n",
		"--local-ranks", "2", "--output", out)
	if code != 0 {
		t.Fatalf("iozone -i0: exit %d\n%s", code, stderr)
	}
	job := loadResult(t, out)
	if !job.Config.FirstDoneStop {
		t.Fatalf("config first_done_stop is off: %+v", job.Config)
	}
	p := job.Phases[0]
	raisers, stopped := checkLiveStop(t, p.Threads, file, record)
	if raisers < 1 || raisers > 2 || stopped < 2 {
		t.Errorf("%d threads raised the stop and %d were stopped; want 1 or 2 (one a rank at most) and the rest stopped", raisers, stopped)
	}
	// IOzone's Min xfer line is the least of those counts.
	least := int64(file)
	for _, th := range p.Threads {
		least = min(least, th.StonewallBytes)
	}
	m := regexp.MustCompile(`Min xfer\s*=\s*([0-9.]+) kB`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no Min xfer line:\n%s", stdout)
	}
	if got, _ := strconv.ParseFloat(m[1], 64); got != float64(least)/1024 {
		t.Errorf("Min xfer %s kB, want %.2f (the least stonewall_bytes)", m[1], float64(least)/1024)
	}

	_, stderr, code = runIn(t, dir, "iozone", "-i1", "-x", "-r", "4k", "-s", "4m", "-t", "4", "-+n", "--local-ranks", "2",
		"--verify", "--output", filepath.Join(t.TempDir(), "r.json"))
	if code != 0 {
		t.Fatalf("-x --verify read of the stopped writers' files: exit %d\n%s", code, stderr)
	}
}

// checkLiveStop checks every thread record of a live-stop phase and
// returns how many raised the stop and how many it stopped.
func checkLiveStop(t *testing.T, threads []result.Thread, file, record int64) (raisers, stopped int) {
	t.Helper()
	var raised int64
	for _, th := range threads {
		if th.RaisedStopNS != 0 && (raised == 0 || th.RaisedStopNS < raised) {
			raised = th.RaisedStopNS
		}
	}
	for _, th := range threads {
		what := fmt.Sprintf("thread %d (rank %d): xfer %d, end %d, fsync %d ns, untimed end %d; stop raised at %d",
			th.Thread, th.Rank, th.StonewallBytes, th.StonewallEndNS, th.FsyncNS, th.UntimedEndNS, raised)
		if th.RaisedStopNS != 0 {
			raisers++
			if th.StonewallBytes != file || th.StonewallEndNS != th.EndNS {
				t.Errorf("raised the stop but is not counted whole: %s", what)
			}
			continue
		}
		stopped++
		switch {
		case th.StonewallBytes > file-record:
			t.Errorf("stopped but counted its last record: %s", what)
		case th.StonewallEndNS < raised || th.StonewallEndNS != th.EndNS:
			t.Errorf("its time ends before the stop was raised: %s", what)
		case th.FsyncNS <= 0:
			t.Errorf("no fsync inside its time: %s", what)
		case th.UntimedEndNS != 0 && th.UntimedEndNS < th.EndNS:
			t.Errorf("finished its file before its timed part ended: %s", what)
		}
	}
	return raisers, stopped
}

// IOzone's -i2 writes every record of each file once, in a shuffled order:
// random writes into files whose every page is a hole leave no hole. The
// same check fails with --rand-order uniform, which draws with replacement.
func TestIOzoneRandomWriteVisitsEveryPage(t *testing.T) {
	const file = 1 << 20
	for _, order := range []string{"shuffle", "uniform"} {
		dir := t.TempDir()
		_, stderr, code := runIn(t, dir, "iozone", "-i0", "-w", "-r", "4k", "-s", "1m", "-t", "2", "-+n", "-x")
		if code != 0 {
			t.Fatalf("iozone -i0 -w: exit %d\n%s", code, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "ioswarm-*", "*.dat"))
		if len(files) != 2 {
			t.Fatalf("kept files %v, want 2", files)
		}
		for _, f := range files {
			// Every page a hole, the size kept: what the random writes
			// allocate is what they visited.
			if err := os.Truncate(f, 0); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(f, file); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "rw.json")
		_, stderr, code = runIn(t, dir, "iozone", "-i2", "-w", "-O", "-c", "-e", "-r", "4k", "-s", "1m", "-t", "2", "-+n", "-x",
			"--rand-order", order, "--output", out)
		if code != 0 {
			t.Fatalf("%s: iozone -i2: exit %d\n%s", order, code, stderr)
		}
		if got := loadResult(t, out).Config.RandOrder.String(); got != order {
			t.Errorf("config rand_order %q, want %q", got, order)
		}
		for _, f := range files {
			var st unix.Stat_t
			if err := unix.Stat(f, &st); err != nil {
				t.Fatal(err)
			}
			allocated := st.Blocks * 512
			if whole := allocated >= file; whole != (order == "shuffle") {
				t.Errorf("%s: %s has %d of %d bytes allocated after one pass of random writes", order, filepath.Base(f), allocated, file)
			}
		}
	}
}
