package coordinator

import (
	"golang.org/x/sys/unix"
)

// fdsPerRank is what the coordinator holds open per rank at most: the
// barrier connection, the launcher's connection or process with its
// input and output, and the error stream; fdsBase covers the rest of
// the process (listener, logs, result files).
const (
	fdsPerRank = 4
	fdsBase    = 64
)

// checkFileLimit makes sure the process may open the descriptors a job
// of ranks ranks needs. Go raises the soft limit to the hard one at
// start; a hard limit below the need fails here, before anything starts,
// instead of as "accept4: too many open files" among the ranks' errors.
func checkFileLimit(ranks int) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return nil // nothing to check against
	}
	need := uint64(fdsBase + fdsPerRank*ranks)
	if lim.Cur >= need {
		return nil
	}
	if lim.Max >= need {
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err == nil {
			return nil
		}
	}
	return usagef("the open-files limit is %d (hard %d) and %d ranks need about %d (%d each and %d more): raise it with ulimit -n (the hard limit with ulimit -Hn, as root or in limits.conf), or use fewer nodes",
		lim.Cur, lim.Max, ranks, need, fdsPerRank, fdsBase)
}
