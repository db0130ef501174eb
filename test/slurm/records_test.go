package slurm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// record is one line of Dir/pids as slurm.sh writes it: "PID START ROLE",
// START being the process's start time in clock ticks since boot.
type record struct {
	pid   int
	start string
	role  string
}

func readRecords(t *testing.T, dir string) []record {
	t.Helper()
	var recs []record
	for _, line := range readLines(t, filepath.Join(dir, "pids")) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("bad line in %s/pids: %q", dir, line)
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("bad pid in %s/pids: %q", dir, line)
		}
		recs = append(recs, record{pid: pid, start: f[1], role: f[2]})
	}
	if len(recs) == 0 {
		t.Fatalf("%s/pids records no process", dir)
	}
	return recs
}

// alive reports whether the recorded process still runs. A zombie counts
// as dead, and so does another process that reused the PID.
func (r record) alive() bool {
	state, start, err := procStat(r.pid)
	return err == nil && state != "Z" && start == r.start
}

// procStat returns the state and start time fields of /proc/PID/stat.
func procStat(pid int) (state, start string, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", "", err
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return "", "", fmt.Errorf("short /proc/%d/stat: %q", pid, s)
	}
	return f[0], f[19], nil
}

// TestRecordAlive checks the liveness test used after teardown on this
// very process, so that a broken check cannot pass silently.
func TestRecordAlive(t *testing.T) {
	_, start, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if r := (record{pid: os.Getpid(), start: start}); !r.alive() {
		t.Errorf("this test process (pid %d, start %s) is not alive", r.pid, r.start)
	}
	if r := (record{pid: os.Getpid(), start: start + "0"}); r.alive() {
		t.Errorf("a record with another start time counts as alive: %+v", r)
	}
	if r := (record{pid: 1 << 30, start: start}); r.alive() {
		t.Errorf("a record of a pid that cannot exist counts as alive: %+v", r)
	}
}
