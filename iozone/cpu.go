package iozone

import (
	"bufio"
	"fmt"
	"io"

	"ioswarm/result"
)

// cpuClockResolution is the resolution of the clock the ranks read each
// thread's CPU time from (CLOCK_THREAD_CPUTIME_ID counts nanoseconds).
// IOzone measures getrusage's and prints it with -+u; it also zeroes any
// CPU time under it, which with nanoseconds leaves every time as it is.
const cpuClockResolution = 1e-9

// cpuResolutionSetting is the option line -+u adds to the header.
var cpuResolutionSetting = fmt.Sprintf("CPU utilization Resolution = %5.3f seconds.", cpuClockResolution)

// CPUUse is IOzone's -+u account of a child or a test: wall and CPU time
// in seconds and their ratio in percent (over 100 when several children
// ran at once).
type CPUUse struct {
	Wall        float64 `json:"wall_time"`
	CPU         float64 `json:"cpu_time"`
	Utilization float64 `json:"cpu_utilization"`
}

// childCPU is one thread as an IOzone child with -+u: its CPU time (user +
// system of its own OS thread) and the wall time it was taken over, both
// from its start to the end of its work on the file (a stopped writer's
// untimed rest included), as IOzone's child reads both when it has
// finished its file. IOzone's parent raises a wall time below the CPU
// time to it (a timer's rounding could make it so).
func childCPU(th *result.Thread) CPUUse {
	c := CPUUse{Wall: float64(th.CPUWallNS) / 1e9, CPU: float64(th.CPUNS) / 1e9}
	c.Wall = max(c.Wall, c.CPU)
	c.Utilization = cpuPercent(c.CPU, c.Wall)
	return c
}

// testCPU is a test's -+u line from its children's: the sum of their CPU
// times over the longest of their wall times (throughput_test).
func testCPU(children []Child) CPUUse {
	var t CPUUse
	for _, c := range children {
		t.CPU += c.CPU.CPU
		t.Wall = max(t.Wall, c.CPU.Wall)
	}
	t.Utilization = cpuPercent(t.CPU, t.Wall)
	return t
}

// cpuPercent is IOzone's cpu_util: 100 × cpu / wall, 0 with no wall time.
func cpuPercent(cpu, wall float64) float64 {
	if wall <= 0 {
		return 0
	}
	return 100 * max(cpu, 0) / wall
}

// writeCPULine prints the -+u line after a test's Min xfer, as
// throughput_test does: "Utilization" capitalised for the initial
// writers when there is a wall time, "utilization" otherwise, and an
// empty line after it.
func (r Report) writeCPULine(b *bufio.Writer) {
	word := "utilization"
	if r.Label == "initial writers" && r.CPU.Wall != 0 {
		word = "Utilization"
	}
	fmt.Fprintf(b, "\tCPU %s: Wall time %8.3f    CPU time %8.3f    CPU utilization %6.2f %%\n\n",
		word, r.CPU.Wall, r.CPU.CPU, r.CPU.Utilization)
}

// writeChildCPU prints a -C line with -+u's wall, CPU and percentage.
func (r Report) writeChildCPU(b *bufio.Writer, i int, c Child) {
	fmt.Fprintf(b, "\tChild[%d] xfer count = %10.2f %s, Throughput = %10.2f %s/sec, wall=%6.3f, cpu=%6.3f, %%=%6.2f\n",
		i, c.Xfer, r.Unit, c.Throughput, r.Unit, c.CPU.Wall, c.CPU.CPU, c.CPU.Utilization)
}

// cpuRowNames are the row names of IOzone's -R CPU table: its fixed list
// of throughput tests (throughput_tests[]), by position. IOzone fills
// the CPU table at the same positions as the throughput table, so a
// column's value sits where that test's throughput sits, under this
// list's name for the position: without -i0 IOzone's second row is
// named "Rewrite" here, and -i2's random tests land on "Read" and
// "Re-read" when no -i1 came before.
var cpuRowNames = []string{"Initial write", "Rewrite", "Read", "Re-read", "Reverse Read", "Stride read",
	"Random read", "Mixed workload", "Random write", "Pwrite", "Pread", "Fwrite", "Fread"}

// CPURows are the rows of IOzone's -R CPU table for cmd: the throughput
// table's positions (ExcelRows) under cpuRowNames, each value the test's
// CPU utilisation in percent (0 where IOzone did not run it).
func CPURows(jobs []*result.Job, cmd Command) ([]ExcelRow, error) {
	var rows []ExcelRow
	for i, slot := range excelSlots(cmd) {
		values := make([]float64, len(jobs))
		for k, job := range jobs {
			r, ok, err := firstReport(job, slot.phase, cmd)
			if err != nil {
				return nil, err
			}
			if ok {
				values[k] = r.CPU.Utilization
			}
		}
		name := ""
		if i < len(cpuRowNames) {
			name = cpuRowNames[i]
		}
		rows = append(rows, ExcelRow{Test: name, Values: values})
	}
	return rows, nil
}

// writeCPUTable prints IOzone's -R CPU table (dump_throughput_cpu), which
// follows the throughput table with -+u.
func writeCPUTable(w io.Writer, jobs []*result.Job, cmd Command, recordKB int64) error {
	rows, err := CPURows(jobs, cmd)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "\n\"%s\"\n", cpuTitle(cmd))
	fmt.Fprintf(b, "\"Record size = %d kBytes \"\n\"Output is in CPU%%\"\n\n", recordKB)
	for _, row := range rows {
		fmt.Fprintf(b, "\"%15s \"", row.Test)
		for _, v := range row.Values {
			fmt.Fprintf(b, " %10.2f ", v)
		}
		b.WriteString("\n\n")
	}
	return b.Flush()
}
