package htmlreport

// Definition is one figure the report shows and how it is computed.
type Definition struct{ Name, Text string }

// definitions are the figures of DESIGN §6 as the report prints them.
var definitions = []Definition{
	{"GB/s (bandwidth)", "All bytes the phase moved, over every thread of every node, divided by the phase's window: " +
		"from the earliest thread's start (before its open) to the latest thread's end (after its fsync and close), " +
		"on the coordinator's clock. GB are 10^9 bytes. This is what the filesystem delivered to the job (IOR's definition)."},
	{"IOPS", "Operations of a random phase over the same window; metadata phases count their operations (create, stat, " +
		"read, delete) the same way, as operations per second."},
	{"mean ± stddev", "A point run with several iterations shows the mean over them and their sample standard deviation; " +
		"the charts' error bars span the same."},
	{"first-done", "Bytes moved by all threads up to the moment the first thread finished, over that moment less the " +
		"earliest start (the stonewall figure). n/a where it is withheld: buffered writes with fsync, whose other threads' " +
		"bytes were still in the page cache at that moment."},
	{"sum of rates", "The sum over threads of each thread's bytes over its own time: it matches IOzone's \"Children see " +
		"throughput\" only with IOzone's -x; it is never less than GB/s and says nothing of the job's window."},
	{"peak", "A phase's best complete point: the largest GB/s (or IOPS) over the thread counts, with the count it was reached at."},
	{"sustained", "The phase's figure at the study's largest thread count: what the system keeps delivering when every " +
		"thread is busy, beside the peak."},
	{"change", "B relative to A in percent: +24.0% means B delivered 1.24 × A."},
	{"beyond / within noise", "beyond: the ranges (min to max) of A's and B's iterations at that point do not overlap; " +
		"within: they do, so the change may be noise; -: a side ran one iteration, with no spread to judge by."},
	{"warnings", "What the runs said of a figure: a read that may have come from a cache, threads that began far apart, " +
		"a node that ran slow. A figure under a cache warning is not a storage figure."},
}
