package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// record is one process cluster.sh started: its PID and its start time in
// clock ticks since boot (field 22 of /proc/PID/stat), which tells the
// process apart from a later one that reuses the PID.
type record struct {
	pid   int
	start string
	label string
}

// alive reports whether the recorded process still runs. A zombie counts as
// gone: it has exited and only waits for its parent to collect it.
func (r record) alive() bool {
	state, start, err := procStat(r.pid)
	return err == nil && state != 'Z' && start == r.start
}

// procStat returns a process's state letter and start time.
func procStat(pid int) (state byte, start string, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", err
	}
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after its closing parenthesis start with the state.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, "", fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, "", fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	return f[0][0], f[19], nil
}

// parseRecord reads a "PID STARTTIME LABEL..." line.
func parseRecord(line string) (record, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return record{}, fmt.Errorf("pid record %q: want PID STARTTIME [LABEL]", line)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return record{}, fmt.Errorf("pid record %q: bad PID", line)
	}
	return record{pid: pid, start: f[1], label: strings.Join(f[2:], " ")}, nil
}

// records reads the PIDs up recorded in DIR/pids.
func (c *Cluster) records() ([]record, error) {
	data, err := os.ReadFile(filepath.Join(c.Dir, "pids"))
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's pid records: %w", err)
	}
	var rs []record
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		r, err := parseRecord(line)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// sshdPID returns the PID of node's sshd, whose namespaces are the node's.
func (c *Cluster) sshdPID(node string) (int, error) {
	if !slices.Contains(c.Nodes, node) {
		return 0, fmt.Errorf("no node %q in the cluster (%s)", node, strings.Join(c.Nodes, " "))
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, "nodes", node, "pid"))
	if err != nil {
		return 0, fmt.Errorf("%s: reading its sshd pid record: %w", node, err)
	}
	r, err := parseRecord(string(data))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", node, err)
	}
	if !r.alive() {
		return 0, errors.New(node + ": its sshd is not running (cluster down?)")
	}
	return r.pid, nil
}
