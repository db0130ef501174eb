package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Process is a live process as /proc shows it.
type Process struct {
	PID, PPID int
	// Exe is the program it runs, without the " (deleted)" the kernel
	// adds once that file is removed: a binary deleted under a running
	// process still counts as that binary.
	Exe string
}

// Processes lists the live processes on this machine whose program can be
// read: zombies are dead and left out (their exe link is gone), as are
// kernel threads and any process that ends while it is being read.
func Processes() ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var procs []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		state, ppid, ok := stat(pid)
		if !ok || state == "Z" {
			continue
		}
		procs = append(procs, Process{PID: pid, PPID: ppid, Exe: strings.TrimSuffix(exe, " (deleted)")})
	}
	return procs, nil
}

// stat reads a process's state and parent from /proc/PID/stat, where they
// follow the command's name in parentheses (a name that may itself hold
// spaces and parentheses, hence the last one).
func stat(pid int) (state string, ppid int, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(data, ')')
	if err != nil || i < 0 {
		return "", 0, false
	}
	if _, err := fmt.Sscan(string(data[i+1:]), &state, &ppid); err != nil {
		return "", 0, false
	}
	return state, ppid, true
}

// Args is a process's command line, argument by argument; nil once it has
// ended.
func Args(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	s := strings.TrimRight(string(data), "\x00")
	if err != nil || s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// ProcessesOf lists the PIDs of the live processes running exe: the
// "nothing left running" check.
func ProcessesOf(t testing.TB, exe string) []int {
	t.Helper()
	procs, err := Processes()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range procs {
		if p.Exe == exe {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// WaitNoProcesses waits up to within for every process running exe to be
// gone, and fails the test, naming them, if any is left.
func WaitNoProcesses(t testing.TB, exe string, within time.Duration) {
	t.Helper()
	var pids []int
	gone := Poll(within, 50*time.Millisecond, func() bool {
		pids = ProcessesOf(t, exe)
		return len(pids) == 0
	})
	if !gone {
		t.Fatalf("processes of %s still running after %s: %v", exe, within, pids)
	}
}
