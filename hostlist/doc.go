// Package hostlist turns the ways people name a set of machines into an
// ordered list of hosts: Slurm hostlist expressions ("node[01-16,20]"), inline
// lists with user@ and :port ("root@node[1-4]:2222"), host files with
// per-host fields ("node7 dir=/gpfs/x") and IOzone -+m client files
// ("host workdir exe").
//
// Order is meaning here: threads are placed on hosts in list order, and an
// IOzone client file has one line per thread slot, so duplicates are kept and
// nothing is sorted. Every input is bounded (host count, name length, file and
// line size) and the bounds are checked before memory is allocated, so a
// typing mistake such as n[0-99999999999] is an error rather than an
// out-of-memory kill.
//
// The package only parses. It imports the standard library and
// ioswarm/internal/usage (to quote the values its errors echo) and nothing
// else: it never resolves names, opens connections or imports the launcher,
// which is the package that acts on its results.
package hostlist
