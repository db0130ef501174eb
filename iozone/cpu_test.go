package iozone

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/result"
)

// cpuPhase is handPhase with CPU times: thread 0 used 1 s of CPU in 4 s,
// thread 1 3 s in 5 s, thread 2 2 s in a wall time of 1 s (a rounding
// IOzone's parent corrects by raising the wall time to the CPU time).
func cpuPhase(name string) *result.Phase {
	p := handPhase(name)
	for i, c := range []struct{ cpu, wall int64 }{{1 * sec, 4 * sec}, {3 * sec, 5 * sec}, {2 * sec, 1 * sec}} {
		p.Threads[i].CPUNS, p.Threads[i].CPUWallNS = c.cpu, c.wall
	}
	return p
}

// The figures IOzone's throughput_test makes of its children's times,
// worked out by hand: per child CPU over its own wall time, the test's Σ
// CPU over the longest wall time.
func TestCPUFiguresHand(t *testing.T) {
	r, err := Lines(cpuPhase("write"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []CPUUse{{4, 1, 25}, {5, 3, 60}, {2, 2, 100}}
	for i, c := range r.Child {
		near(t, "child wall", c.CPU.Wall, want[i].Wall)
		near(t, "child cpu", c.CPU.CPU, want[i].CPU)
		near(t, "child %", c.CPU.Utilization, want[i].Utilization)
	}
	// Σ CPU 6 s over the longest wall time, 5 s: 120%.
	near(t, "test wall", r.CPU.Wall, 5)
	near(t, "test cpu", r.CPU.CPU, 6)
	near(t, "test %", r.CPU.Utilization, 120)
	if got := testCPU(nil); got != (CPUUse{}) {
		t.Errorf("no children: %+v, want zeros (IOzone prints 0.00 %% with no wall time)", got)
	}
}

// IOzone's exact lines: "Utilization" for the initial writers, and the -C
// lines with wall, cpu and %.
func TestCPULines(t *testing.T) {
	cases := []struct {
		phase, want string
	}{
		{"write", "\tCPU Utilization: Wall time    5.000    CPU time    6.000    CPU utilization 120.00 %\n\n"},
		{"read", "\tCPU utilization: Wall time    5.000    CPU time    6.000    CPU utilization 120.00 %\n\n"},
	}
	for _, c := range cases {
		r, err := Lines(cpuPhase(c.phase), false, false)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.Write(&buf, Style{CPU: true, PerChild: true}); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		if !strings.Contains(got, "kB\n"+c.want+"\tChild[0]") {
			t.Errorf("%s: the CPU line is not %q right after Min xfer and before the -C lines:\n%s", c.phase, c.want, got)
		}
		child := "\tChild[1] xfer count =    8192.00 kB, Throughput =    1638.40 kB/sec, wall= 5.000, cpu= 3.000, %= 60.00\n"
		if !strings.Contains(got, child) {
			t.Errorf("%s: no -C line %q in\n%s", c.phase, child, got)
		}
	}
}

// The -R CPU table keeps the throughput table's positions under IOzone's
// fixed names: -i2 alone puts random read and write on "Read" and
// "Re-read", as real IOzone 3.489 does.
func TestCPURowsKeepIOzonePositions(t *testing.T) {
	cmd, err := Parse(words("-i2 -w -r 1m -s 8m -t 3 -R -+u"))
	if err != nil {
		t.Fatal(err)
	}
	job := &result.Job{Config: result.Config{Threads: 3, BlockSize: mib, FileSize: 8 * mib}}
	for _, name := range []string{"randread", "randwrite"} {
		job.Phases = append(job.Phases, *cpuPhase(name))
	}
	rows, err := CPURows([]*result.Job{job}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"Initial write", "Rewrite", "Read", "Re-read"}
	values := []float64{0, 0, 120, 120}
	if len(rows) != len(names) {
		t.Fatalf("%d rows %+v, want %v", len(rows), rows, names)
	}
	for i, row := range rows {
		if row.Test != names[i] || len(row.Values) != 1 || row.Values[0] != values[i] {
			t.Errorf("row %d: %+v, want %q %v", i, row, names[i], values[i])
		}
	}
}

// The testdata files iozone-3.489-cpu-*.txt are real IOzone 3.489's stdout
// (Debian's iozone3) with -+u: ioswarm's stream for the same command line
// has the same lines once the values are masked (the CPU line after Min
// xfer and its empty line, -C's wall/cpu/% lines, the -R CPU table).
func TestStreamMatchesRealIOzoneCPU(t *testing.T) {
	cases := []struct {
		transcript, args string
		phases           []string
	}{
		{"iozone-3.489-cpu-write.txt", "-i0 -c -e -w -r 64k -s 1m -t 2 -+u -R -C", []string{"write", "rewrite"}},
		{"iozone-3.489-cpu-read-only.txt", "-i1 -w -r 64k -s 1m -t 2 -R -+u", []string{"read", "reread"}},
		{"iozone-3.489-cpu-random.txt", "-i2 -O -w -r 64k -s 1m -t 2 -+n -R -C -+u", []string{"randread", "randwrite"}},
	}
	for _, c := range cases {
		want, err := os.ReadFile(filepath.Join("testdata", c.transcript))
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := Parse(strings.Fields(c.args))
		if err != nil {
			t.Fatal(err)
		}
		var jobs []*result.Job
		for _, n := range cmd.ThreadCounts() {
			job := evenJob(n, c.phases)
			for k := range job.Phases {
				for i := range job.Phases[k].Threads {
					job.Phases[k].Threads[i].CPUNS, job.Phases[k].Threads[i].CPUWallNS = sec/2, sec
				}
			}
			jobs = append(jobs, job)
		}
		var got bytes.Buffer
		if err := WriteHeader(&got, cmd, append([]string{"iozone"}, strings.Fields(c.args)...), time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		if err := WriteAll(&got, jobs, cmd); err != nil {
			t.Fatal(err)
		}
		if g, w := maskValues(got.String()), maskValues(string(want)); g != w {
			t.Errorf("%s: ioswarm's stream differs from IOzone's (values masked)\n--- ioswarm ---\n%s\n--- iozone ---\n%s", c.args, g, w)
		}
	}
}

// The JSON holds the -+u values of every test and child, and the -R CPU
// table's rows.
func TestResultHasCPU(t *testing.T) {
	cmd, err := Parse(words("-i0 -i1 -C -r 1m -s 8m -t 3 -+u"))
	if err != nil {
		t.Fatal(err)
	}
	job := handJob(3)
	for k := range job.Phases {
		job.Phases[k] = *cpuPhase(job.Phases[k].Name)
	}
	r, err := NewResult(cmd, "iozone", []*result.Job{job})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	w := back.Runs[0].Tests[0]
	if !back.CPULines || w.CPU != (CPUUse{Wall: 5, CPU: 6, Utilization: 120}) || w.Child[1].CPU != (CPUUse{Wall: 5, CPU: 3, Utilization: 60}) {
		t.Errorf("cpu_lines %v, write test cpu %+v, child 1 cpu %+v", back.CPULines, w.CPU, w.Child[1].CPU)
	}
	if len(back.CPURows) != 4 || back.CPURows[2].Test != "Read" || back.CPURows[2].Values[0] != 120 {
		t.Errorf("cpu_rows %+v", back.CPURows)
	}
}
