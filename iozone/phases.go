package iozone

import "fmt"

// test describes one IOzone throughput test as ioswarm runs it.
type test struct {
	phase  string // ioswarm phase name
	number int    // the -i that selects it
	retest bool   // skipped with -+n
	label  string // IOzone's "Children see throughput for N <label>"
	row    string // IOzone's row name in the -R table (throughput_tests[])
	reads  bool   // readers stop at IOzone's stonewall; writers finish untimed
}

// tests lists the tests in the order throughput_test runs them, whatever
// the order of the -i options: write, rewrite, read, re-read, then (after
// tests ioswarm does not have) random read and finally random write.
var tests = []test{
	{"write", 0, false, "initial writers", "Initial write", false},
	{"rewrite", 0, true, "rewriters", "Rewrite", false},
	{"read", 1, false, "readers", "Read", true},
	{"reread", 1, true, "re-readers", "Re-read", true},
	{"randread", 2, false, "random readers", "Random read", true},
	{"randwrite", 2, false, "random writers", "Random write", false},
}

// testFor returns the test ioswarm phase name stands for.
func testFor(phase string) (test, bool) {
	for _, t := range tests {
		if t.phase == phase {
			return t, true
		}
	}
	return test{}, false
}

// Phases returns the ioswarm phases the command runs, in IOzone's order:
// -i0 is write then rewrite, -i1 read then reread, -i2 randread then
// randwrite; -+n drops rewrite and reread.
func (c Command) Phases() []string {
	var out []string
	for _, t := range tests {
		if c.selects(t.number) && !(t.retest && c.NoRetest) {
			out = append(out, t.phase)
		}
	}
	return out
}

func (c Command) selects(n int) bool {
	for _, i := range c.Tests {
		if i == n {
			return true
		}
	}
	return false
}

// NeedsExistingFiles reports whether the command runs tests on files it
// did not write: IOzone's -i1 or -i2 without -i0 opens the files a
// previous run left (with -w), and so must ioswarm (its --reuse).
func (c Command) NeedsExistingFiles() bool { return !c.selects(0) }

// ThreadCounts returns the thread counts to run, one job each, as
// multi_throughput_test does: every -t value in the order given; without
// -t, each count from -l to -u in steps of 1 (-u alone starts at 1, -l
// alone runs just -l).
func (c Command) ThreadCounts() []int {
	if len(c.Threads) > 0 {
		return append([]int(nil), c.Threads...)
	}
	lo, hi := c.MinProcs, c.MaxProcs
	if lo == 0 {
		lo = 1
	}
	if hi == 0 {
		hi = lo
	}
	var out []int
	for n := lo; n <= hi; n++ {
		out = append(out, n)
	}
	return out
}

// MaxThreads is the largest thread count the command runs (IOzone's maxt).
func (c Command) MaxThreads() int {
	n := 0
	for _, t := range c.ThreadCounts() {
		n = max(n, t)
	}
	return n
}

// CheckClients applies IOzone's check of a -+m client file: it must have
// a line for every child of the largest run. lines is the number of
// client lines the caller read from the file, threads the thread count.
func CheckClients(lines, threads int) error {
	if threads > lines {
		return &OptionError{Option: "-+m", Msg: "You can not specify more threads/processes than you have in the client file list",
			Hint: fmt.Sprintf("%d threads, %d client lines: child i runs on line i", threads, lines)}
	}
	return nil
}

// Help is what ioswarm iozone -h prints.
const Help = `usage: ioswarm iozone [IOzone options]

IOzone 3.49x options for its throughput and cluster modes:
  -i 0|1|2     tests: 0 = write, rewrite; 1 = read, re-read; 2 = random read, random write
  -t N         threads (several -t: one job each); -l N -u M: N..M threads, one job each
  -s SIZE      file size per thread, kB unless it ends in k, m or g
  -r SIZE      record size, kB unless it ends in k, m or g (at most 16m)
  -c -e        close and fsync inside the timing (ioswarm always times both)
  -w           keep the files (--keep)
  -+n          no rewrite and no re-read
  -+m FILE     IOzone client file: child i runs on line i's host, in its directory
  -F F1 F2 ..  one file name per thread
  -I           O_DIRECT (--direct)
  -o, -+r      O_SYNC: every write on stable storage when it returns (--o-sync)
  -+D          O_DSYNC: the same without the file's timestamps (--o-dsync)
  -O           report operations per second
  -x           stonewalling off
  -C           one line per child
  -R           IOzone's Excel-style table at the end
  -b FILE      the same table as IOzone's Excel worksheet in FILE (turns -R on)
  -+u          CPU utilisation of the threads (with -R also IOzone's CPU table)
  -T           POSIX threads (ioswarm always uses threads)
  -M           the machine's uname -a in the header
  -S KB -L B   the processor cache size and line IOzone's header shows
  -h, --help   this help

stdout holds what IOzone 3.489 prints for the command line, line for line; ioswarm's own figures
and the equivalent ioswarm run command go to stderr. ioswarm's long flags (--output FILE,
--format json, --hosts, ...) may be mixed in.
Any other IOzone option is refused with the closest ioswarm flag.
See docs/iozone.md for each option's ioswarm run equivalent.
`
