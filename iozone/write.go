package iozone

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/units"
)

// layout is how throughput_test prints one test's first two lines: the
// width of the child count and the tabs before "=" differ between tests.
type layout struct{ count, sep string }

var layouts = map[string]layout{
	"initial writers": {"%2d", " \t= "},
	"rewriters":       {"%2d", " \t= "},
	"readers":         {"%2d", " \t\t= "},
	"re-readers":      {"%d", " \t= "},
	"random readers":  {"%d", " \t= "},
	"random writers":  {"%d", " \t= "},
}

// Style says how to print a Report: IOzone's word for a child ("process",
// or "thread" with -T), whether to add the -C per-child lines, and whether
// IOzone runs distributed (-+m), where it prints no Parent sees line.
type Style struct {
	Threads     bool
	PerChild    bool
	Distributed bool
	CPU         bool // -+u: the CPU line, and wall, CPU and % on the -C lines
}

// port is IOzone's word for a child.
func (s Style) port() string {
	if s.Threads {
		return "thread"
	}
	return "process"
}

// styleOf is how cmd's report looks.
func styleOf(cmd Command) Style {
	return Style{Threads: cmd.PosixThreads, PerChild: cmd.PerChild, Distributed: cmd.Distributed(), CPU: cmd.CPUUtil}
}

// Write prints r's lines as IOzone prints a test in throughput mode (tabs
// and widths as in iozone.c) and nothing else: Parent sees only where
// IOzone prints it, the -C lines with PerChild.
func (r Report) Write(w io.Writer, s Style) error {
	b := bufio.NewWriter(w)
	l := layouts[r.Label]
	n := fmt.Sprintf(l.count, r.Children)
	fmt.Fprintf(b, "\tChildren see throughput for %s %s%s%10.2f %s/sec\n", n, r.Label, l.sep, r.ChildrenSee, r.Unit)
	if !s.Distributed {
		fmt.Fprintf(b, "\tParent sees throughput for %s %s%s%10.2f %s/sec\n", n, r.Label, l.sep, r.ParentSees, r.Unit)
	}
	fmt.Fprintf(b, "\tMin throughput per %s \t\t\t= %10.2f %s/sec \n", s.port(), r.Min, r.Unit)
	fmt.Fprintf(b, "\tMax throughput per %s \t\t\t= %10.2f %s/sec\n", s.port(), r.Max, r.Unit)
	fmt.Fprintf(b, "\tAvg throughput per %s \t\t\t= %10.2f %s/sec\n", s.port(), r.Avg, r.Unit)
	fmt.Fprintf(b, "\tMin xfer \t\t\t\t\t= %10.2f %s\n", r.MinXfer, r.Unit)
	if s.CPU {
		r.writeCPULine(b)
	}
	if s.PerChild {
		for i, c := range r.Child {
			if s.CPU {
				r.writeChildCPU(b, i, c)
				continue
			}
			fmt.Fprintf(b, "\tChild[%d] xfer count = %10.2f %s, Throughput = %10.2f %s/sec\n", i, c.Xfer, r.Unit, c.Throughput, r.Unit)
		}
	}
	return b.Flush()
}

// WriteOwn prints ioswarm's figure for r and why it differs from
// IOzone's: lines no IOzone pattern matches, for stderr.
func (r Report) WriteOwn(w io.Writer) error {
	b := bufio.NewWriter(w)
	if r.Unit == "ops" {
		fmt.Fprintf(b, "ioswarm %s: IOPS over the global window %.2f ops/s\n", r.Phase, r.IOPS)
	} else {
		fmt.Fprintf(b, "ioswarm %s: bandwidth over the global window %.2f kB/s (%s, %s)\n",
			r.Phase, r.Bandwidth/1024, units.FormatRate(r.Bandwidth), units.FormatRateGiB(r.Bandwidth))
	}
	fmt.Fprintf(b, "  (%s)\n", r.Explanation())
	if r.CacheNote != "" {
		fmt.Fprintf(b, "  note: the stonewalled %s lines count bytes still in the page cache when the first child ended "+
			"(IOzone -e would have fsynced them inside its time); hold -x or the global figure against storage\n", r.Phase)
	}
	if n := r.DropNote(); n != "" {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	return b.Flush()
}

// DropNote says, for a reading test ioswarm emptied the page cache before,
// that IOzone does not: on the same line IOzone reads what its writers
// left cached, and its figure can be many times this one. Empty where
// nothing was dropped.
func (r Report) DropNote() string {
	if r.Dropped == "" {
		return ""
	}
	how := "dropped the page cache (drop_caches)"
	if r.Dropped == settings.DropFadvise {
		how = "dropped the job's files from the page cache (fadvise)"
	}
	// r.Label stays out: a script that greps IOzone's test names over
	// stdout and stderr together would take this line for one of its own.
	return fmt.Sprintf("ioswarm %s before %s; IOzone never does, so where the files fit in memory IOzone's "+
		"figures for this test come from the page cache; --drop-caches off runs on IOzone's terms", how, r.Phase)
}

// Explanation says how ioswarm's figure differs from IOzone's lines.
func (r Report) Explanation() string {
	how := "every child's own time, stopped at the first child's end"
	if !r.Stonewall {
		how = "every child's own time"
	}
	what := "bytes"
	if r.Unit == "ops" {
		what = "operations"
	}
	return fmt.Sprintf("all %s over latest end - earliest start, open and close inside: what the filesystem delivered "+
		"to the job; IOzone's Children see adds per-child rates over %s", what, how)
}

// WriteReport prints one job (one thread count) as IOzone's
// throughput_test does: the file and record size, then each test it ran,
// in IOzone's order, each after an empty line ("Test running:" with -+m),
// and the end of the job ("Test cleanup:" with -+m unless -w).
func WriteReport(w io.Writer, job *result.Job, cmd Command) error {
	s := styleOf(cmd)
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "\tEach %s writes a %d kByte file in %d kByte records\n", s.port(), job.Config.FileSize>>10, recordSize(job, cmd)>>10)
	reports, err := jobReports(job, cmd)
	if err != nil {
		return err
	}
	for _, r := range reports {
		b.WriteString("\n")
		if s.Distributed {
			b.WriteString("\tTest running:\n")
		}
		if err := r.Write(b, s); err != nil {
			return err
		}
	}
	if s.Distributed && !cmd.Keep {
		b.WriteString("\n\tTest cleanup:")
	}
	b.WriteString("\n\n")
	return b.Flush()
}

// WriteOwnReport prints ioswarm's own figures for every IOzone test of
// job, for stderr.
func WriteOwnReport(w io.Writer, job *result.Job, cmd Command) error {
	reports, err := jobReports(job, cmd)
	if err != nil {
		return err
	}
	for _, r := range reports {
		if err := r.WriteOwn(w); err != nil {
			return err
		}
	}
	return nil
}

// jobReports computes IOzone's lines for every phase of job that is an
// IOzone test, in the job's order, with the command's -x and -O.
func jobReports(job *result.Job, cmd Command) ([]Report, error) {
	var out []Report
	for i := range job.Phases {
		p := &job.Phases[i]
		if _, ok := testFor(p.Name); !ok {
			continue
		}
		r, err := Lines(p, !cmd.NoStonewall, cmd.OpsPerSec)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// recordSize is the -r the job ran with: the command's, else the job's
// block size.
func recordSize(job *result.Job, cmd Command) int64 {
	if cmd.RecordSizeSet || job.Config.BlockSize == 0 {
		return cmd.RecordSize
	}
	return job.Config.BlockSize
}

// WriteAll prints what IOzone prints after its header for jobs, one per
// thread count: each job's tests, the -R table over all of them, and
// the closing line.
func WriteAll(w io.Writer, jobs []*result.Job, cmd Command) error {
	for _, job := range jobs {
		if err := WriteReport(w, job, cmd); err != nil {
			return err
		}
	}
	return WriteEnd(w, jobs, cmd)
}

// WriteEnd prints what IOzone prints after its last test: the -R table
// (with -R) and "iozone test complete.".
func WriteEnd(w io.Writer, jobs []*result.Job, cmd Command) error {
	if cmd.Excel {
		if err := WriteExcel(w, jobs, cmd); err != nil {
			return err
		}
	}
	return WriteComplete(w)
}

// Equivalent returns `ioswarm run` with the flags the IOzone options map
// to (RunArgs) at a thread count, for docs. The iozone command prints the
// whole line it runs, which adds IOzone's habits beyond the options
// (every random operation, reads on the writing node, kept files).
func (c Command) Equivalent(threads int) string {
	args, err := c.RunArgs(threads)
	if err != nil {
		return "ioswarm run (none: " + err.Error() + ")"
	}
	return "ioswarm run " + strings.Join(args, " ")
}

// RunArgs returns the `ioswarm run` flags that run cmd at a thread count.
// IOzone writes in the working directory (or each -+m client's); -F names
// files whose directory ioswarm takes, since it names each thread's file
// itself: files in several directories are refused.
func (c Command) RunArgs(threads int) ([]string, error) {
	f := []string{"--threads", strconv.Itoa(threads), "--file-size", units.FormatSize(c.FileSize),
		"--block", units.FormatSize(c.RecordSize), "--rand-block", units.FormatSize(c.RecordSize),
		"--phases", strings.Join(c.Phases(), ",")}
	if !c.Fsync {
		f = append(f, "--no-fsync")
	}
	if c.Keep {
		f = append(f, "--keep")
	}
	if c.Direct {
		f = append(f, "--direct")
	}
	switch {
	case c.OSync:
		f = append(f, "--o-sync") // with -+D too: O_SYNC|O_DSYNC is O_SYNC
	case c.ODSync:
		f = append(f, "--o-dsync")
	}
	if c.selects(2) {
		// IOzone's random tests lseek and then read or write: a call more
		// per operation than pread, which a read from the page cache shows
		// (about 15% of its rate at 4 KiB).
		f = append(f, "--rand-call", "lseek")
	}
	if c.ClientFile != "" {
		f = append(f, "--hosts", c.ClientFile)
		if c.ControlHost != "" {
			// IOzone's clients connect back to -+h's name; ranks dial
			// the coordinator where it listens. Without -+m IOzone has
			// no clients and ignores -+h, and so does this.
			f = append(f, "--listen", net.JoinHostPort(c.ControlHost, "0"))
		}
	}
	if len(c.Files) > 0 {
		dir := filepath.Dir(c.Files[0])
		for _, name := range c.Files[1:] {
			if filepath.Dir(name) != dir {
				return nil, fmt.Errorf("-F names files in %s and %s: ioswarm names each thread's file in one directory; "+
					"use -+m with a working directory per client", dir, filepath.Dir(name))
			}
		}
		f = append(f, "--dir", dir)
	}
	return f, nil
}
