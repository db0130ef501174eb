package iozone

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"ioswarm/result"
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
// or "thread" with -T) and whether to add the -C per-child lines.
type Style struct {
	Threads  bool
	PerChild bool
}

// port is IOzone's word for a child.
func (s Style) port() string {
	if s.Threads {
		return "thread"
	}
	return "process"
}

// Write prints r as IOzone prints a test in throughput mode (tabs and
// widths as in iozone.c), with the Parent sees line IOzone leaves out in
// cluster mode, then ioswarm's bandwidth (or IOPS with -O) over the
// global window and why it differs.
func (r Report) Write(w io.Writer, s Style) error {
	b := bufio.NewWriter(w)
	l := layouts[r.Label]
	n := fmt.Sprintf(l.count, r.Children)
	fmt.Fprintf(b, "\n\tChildren see throughput for %s %s%s%10.2f %s/sec\n", n, r.Label, l.sep, r.ChildrenSee, r.Unit)
	fmt.Fprintf(b, "\tParent sees throughput for %s %s%s%10.2f %s/sec\n", n, r.Label, l.sep, r.ParentSees, r.Unit)
	fmt.Fprintf(b, "\tMin throughput per %s \t\t\t= %10.2f %s/sec \n", s.port(), r.Min, r.Unit)
	fmt.Fprintf(b, "\tMax throughput per %s \t\t\t= %10.2f %s/sec\n", s.port(), r.Max, r.Unit)
	fmt.Fprintf(b, "\tAvg throughput per %s \t\t\t= %10.2f %s/sec\n", s.port(), r.Avg, r.Unit)
	fmt.Fprintf(b, "\tMin xfer \t\t\t\t\t= %10.2f %s\n", r.MinXfer, r.Unit)
	if s.PerChild {
		for i, c := range r.Child {
			fmt.Fprintf(b, "\tChild[%d] xfer count = %10.2f %s, Throughput = %10.2f %s/sec\n", i, c.Xfer, r.Unit, c.Throughput, r.Unit)
		}
	}
	r.writeOwn(b)
	return b.Flush()
}

// writeOwn prints ioswarm's figure below IOzone's lines.
func (r Report) writeOwn(b *bufio.Writer) {
	if r.Unit == "ops" {
		fmt.Fprintf(b, "\tioswarm IOPS, global window \t\t\t= %10.2f ops/sec\n", r.IOPS)
	} else {
		fmt.Fprintf(b, "\tioswarm bandwidth, global window \t\t= %10.2f kB/sec (%s, %s)\n",
			r.Bandwidth/1024, units.FormatRate(r.Bandwidth), units.FormatRateGiB(r.Bandwidth))
	}
	how := "every child's own time, stopped at the first child's end"
	if !r.Stonewall {
		how = "every child's own time"
	}
	what := "bytes"
	if r.Unit == "ops" {
		what = "operations"
	}
	fmt.Fprintf(b, "\t(ioswarm's figure is all %s over latest end - earliest start, open and close inside: "+
		"what the filesystem delivered to the job; IOzone's Children see adds per-child rates over %s)\n", what, how)
	if r.CacheNote != "" {
		fmt.Fprintf(b, "\tnote: the stonewalled lines count bytes still in the page cache when the first child ended "+
			"(IOzone -e would have fsynced them inside its time); hold -x or the global figure against storage\n")
	}
}

// WriteReport prints IOzone's header and, for every phase of job that is
// an IOzone test, its lines as Lines and Report.Write make them, with the
// command's -x, -O, -C and -T.
func WriteReport(w io.Writer, job *result.Job, cmd Command) error {
	s := Style{Threads: cmd.PosixThreads, PerChild: cmd.PerChild}
	port := s.port()
	plural := port
	if job.Config.Threads != 1 {
		plural = map[string]string{"process": "processes", "thread": "threads"}[port]
	}
	if _, err := fmt.Fprintf(w, "\tThroughput test with %d %s\n\tEach %s writes a %d kByte file in %d kByte records\n",
		job.Config.Threads, plural, port, job.Config.FileSize>>10, recordSize(job, cmd)>>10); err != nil {
		return err
	}
	for i := range job.Phases {
		p := &job.Phases[i]
		if _, ok := testFor(p.Name); !ok {
			continue
		}
		r, err := Lines(p, !cmd.NoStonewall, cmd.OpsPerSec)
		if err != nil {
			return err
		}
		if err := r.Write(w, s); err != nil {
			return err
		}
	}
	return nil
}

// recordSize is the -r the job ran with: the command's, else the job's
// block size.
func recordSize(job *result.Job, cmd Command) int64 {
	if cmd.RecordSizeSet || job.Config.BlockSize == 0 {
		return cmd.RecordSize
	}
	return job.Config.BlockSize
}

// WriteExcel prints the table IOzone prints at the end with -R: one row
// per test run, one column per job (thread count) holding that test's
// Children see throughput, in IOzone's layout.
func WriteExcel(w io.Writer, jobs []*result.Job, cmd Command) error {
	b := bufio.NewWriter(w)
	unit := "kBytes/sec"
	if cmd.OpsPerSec {
		unit = "ops/sec"
	}
	rec := cmd.RecordSize
	if len(jobs) > 0 {
		rec = recordSize(jobs[0], cmd)
	}
	fmt.Fprintf(b, "\n\"Throughput report Y-axis is type of test X-axis is number of processes\"\n")
	fmt.Fprintf(b, "\"Record size = %d kBytes \"\n\"Output is in %s\"\n\n", rec>>10, unit)
	for _, t := range tests {
		values, ran, err := rowValues(jobs, t.phase, cmd)
		if err != nil {
			return err
		}
		if !ran {
			continue
		}
		fmt.Fprintf(b, "\"%15s \"", t.row)
		for _, v := range values {
			fmt.Fprintf(b, " %10.2f", v)
		}
		b.WriteString(" \n\n")
	}
	return b.Flush()
}

// rowValues is one -R row: Children see of phase in each job (the first
// iteration), 0 where a job did not run it; ran reports whether one did.
func rowValues(jobs []*result.Job, phase string, cmd Command) ([]float64, bool, error) {
	values := make([]float64, len(jobs))
	ran := false
	for i, job := range jobs {
		for k := range job.Phases {
			if job.Phases[k].Name != phase {
				continue
			}
			r, err := Lines(&job.Phases[k], !cmd.NoStonewall, cmd.OpsPerSec)
			if err != nil {
				return nil, false, err
			}
			values[i], ran = r.ChildrenSee, true
			break
		}
	}
	return values, ran, nil
}

// WriteAll prints every job's report, then with -R the table over all of
// them, as IOzone prints its tests for each thread count and the table
// once at the end.
func WriteAll(w io.Writer, jobs []*result.Job, cmd Command) error {
	for _, job := range jobs {
		if err := WriteReport(w, job, cmd); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	if cmd.Excel {
		return WriteExcel(w, jobs, cmd)
	}
	return nil
}

// Equivalent returns the ioswarm run flags that correspond to cmd for a
// thread count, for the header of ioswarm iozone and for docs.
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
	if c.ClientFile != "" {
		f = append(f, "--hosts", c.ClientFile)
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
