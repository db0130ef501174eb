package launcher

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"ioswarm/hostlist"
)

// Command lines of the Slurm tools are built here by pure functions, so
// that tests can check every option without a cluster. srun gets argv
// directly (no shell is involved), so nothing is quoted.

// stepArgs is srun's command line for a one-task step running exe args...
// on node. --overlap lets it share the node with the other steps of this
// run (the rank, a cleanup, the removal of the copy), which otherwise wait
// for each other's CPUs. Without --exact a step gets every CPU the job holds
// on the node, and Slurm binds a lone task to CPUs only when asked to
// (--cpu-bind is not given: on clusters without task/affinity it only adds
// a warning to every launch). --mpi=none skips a site's default PMI setup,
// which a rank does not use.
func stepArgs(node, name, exe string, args []string) []string {
	return append([]string{
		"--nodes=1", "--ntasks=1", "--ntasks-per-node=1", "--nodelist=" + node,
		"--overlap", "--kill-on-bad-exit=1", "--mpi=none",
		"--job-name=" + name, "--quiet", exe,
	}, args...)
}

// removeArgs is srun's command line that removes file on every one of
// nodes, one task each.
func removeArgs(nodes []string, file string) []string {
	n := strconv.Itoa(len(nodes))
	return []string{
		"--nodes=" + n, "--ntasks=" + n, "--ntasks-per-node=1",
		"--nodelist=" + hostlist.Compress(nodes), "--overlap", "--mpi=none",
		"--job-name=ioswarm-cleanup", "--quiet", "rm", "-f", file,
	}
}

// sbcastArgs copies src to dst on every node of the job. --force replaces
// a stale copy; --preserve keeps the executable mode.
func sbcastArgs(src, dst string) []string {
	return []string{"--force", "--preserve", src, dst}
}

// bcastPath is where sbcast puts the binary: named by job, so that removing
// it never touches another job's copy, and by content, so that it is never
// a different build of the same name.
func bcastPath(dir, jobID, hash string) string {
	if dir == "" {
		dir = "/tmp"
	}
	if len(hash) > 12 {
		hash = hash[:12]
	}
	return path.Join(dir, "ioswarm-"+safeName(jobID)+"-"+hash)
}

// safeName keeps a job ID usable as part of a file name whatever it holds.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// nodeAddrs reads `scontrol show node -o` output: one node per line, with
// NodeName= and NodeAddr= among its space-separated fields.
func nodeAddrs(out string) map[string]string {
	addrs := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		var name, addr string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "NodeName="); ok {
				name = v
			} else if v, ok := strings.CutPrefix(f, "NodeAddr="); ok {
				addr = v
			}
		}
		if name != "" && addr != "" {
			addrs[name] = addr
		}
	}
	return addrs
}

// failedNodes finds the nodes the Slurm tools name in their error lines:
// sbcast's "REQUEST_FILE_BCAST(node3): ..." and srun's "Task launch for
// StepId=5.0 failed on node node3: ...". Each node appears once.
func failedNodes(stderr string) []string {
	var nodes []string
	add := func(n string) {
		if n != "" && !strings.ContainsAny(n, " \t") && !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	for _, line := range strings.Split(stderr, "\n") {
		if _, rest, ok := strings.Cut(line, "REQUEST_FILE_BCAST("); ok {
			if n, _, ok := strings.Cut(rest, ")"); ok {
				add(n)
			}
		}
		if _, rest, ok := strings.Cut(line, " failed on node "); ok {
			if n, _, ok := strings.Cut(rest, ":"); ok {
				add(n)
			}
		}
	}
	return nodes
}
