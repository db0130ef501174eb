package iozone

import (
	"bufio"
	"fmt"
	"io"

	"ioswarm/result"
)

// WriteExcel prints the table IOzone prints at the end with -R: one row
// per line of IOzone's table (ExcelRows), one column per job (thread
// count) holding that test's Children see, in IOzone's layout: each cell
// " %10.2f ", each row followed by an empty line.
func WriteExcel(w io.Writer, jobs []*result.Job, cmd Command) error {
	rows, err := ExcelRows(jobs, cmd)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	rec := tableRecordKB(jobs, cmd)
	fmt.Fprintf(b, "\n\"%s\"\n", throughputTitle(cmd))
	fmt.Fprintf(b, "\"Record size = %d kBytes \"\n\"Output is in %s\"\n\n", rec, tableUnit(cmd))
	for _, row := range rows {
		fmt.Fprintf(b, "\"%15s \"", row.Test)
		for _, v := range row.Values {
			fmt.Fprintf(b, " %10.2f ", v)
		}
		b.WriteString("\n\n")
	}
	if err := b.Flush(); err != nil {
		return err
	}
	if cmd.CPUUtil {
		return writeCPUTable(w, jobs, cmd, rec)
	}
	return nil
}

// tableRecordKB is the record size, in kB, that the -R tables and -b's
// worksheet name: the first job's (recordSize), else the command's.
func tableRecordKB(jobs []*result.Job, cmd Command) int64 {
	rec := cmd.RecordSize
	if len(jobs) > 0 {
		rec = recordSize(jobs[0], cmd)
	}
	return rec >> 10
}

// tableUnit is the -R throughput table's unit.
func tableUnit(cmd Command) string {
	if cmd.OpsPerSec {
		return "ops/sec"
	}
	return "kBytes/sec"
}

// throughputTitle and cpuTitle are the first lines of IOzone's -R tables
// (without the quotes stdout puts around them).
func throughputTitle(cmd Command) string {
	return "Throughput report Y-axis is type of test X-axis is number of " + cmd.port(true)
}

func cpuTitle(cmd Command) string {
	return "CPU utilization report Y-axis is type of test X-axis is number of " + cmd.port(true)
}

// ExcelRow is one row of IOzone's -R table: its label and one Children
// see value per job (0 where IOzone did not run the test).
type ExcelRow struct {
	Test   string    `json:"test"`
	Values []float64 `json:"values"`
}

// ExcelRows are the rows IOzone's -R table has for cmd, as its
// throughput_test fills them: "Initial write" always (0 without -i0),
// then "Rewrite" (0 with -+n), or without -i0 a row with no label and 0;
// with -i1 "Read" and "Re-read" (0 with -+n); with -i2 "Random read" and
// "Random write". Spreadsheets that import the table by position rely
// on these rows being there.
func ExcelRows(jobs []*result.Job, cmd Command) ([]ExcelRow, error) {
	var rows []ExcelRow
	for _, slot := range excelSlots(cmd) {
		values, err := rowValues(jobs, slot.phase, cmd)
		if err != nil {
			return nil, err
		}
		rows = append(rows, ExcelRow{Test: slot.label, Values: values})
	}
	return rows, nil
}

// excelSlot is one row of IOzone's -R table: its label and the phase
// whose figure it holds ("": always 0).
type excelSlot struct{ label, phase string }

// excelSlots are the -R table's rows for cmd, in order (see ExcelRows).
func excelSlots(cmd Command) []excelSlot {
	slots := []excelSlot{{"Initial write", ""}, {"", ""}}
	if cmd.selects(0) {
		slots = []excelSlot{{"Initial write", "write"}, {"Rewrite", "rewrite"}}
	}
	if cmd.selects(1) {
		slots = append(slots, excelSlot{"Read", "read"}, excelSlot{"Re-read", "reread"})
	}
	if cmd.selects(2) {
		slots = append(slots, excelSlot{"Random read", "randread"}, excelSlot{"Random write", "randwrite"})
	}
	return slots
}

// rowValues is one -R row: Children see of phase in each job (the first
// iteration), 0 where a job did not run it.
func rowValues(jobs []*result.Job, phase string, cmd Command) ([]float64, error) {
	values := make([]float64, len(jobs))
	for i, job := range jobs {
		r, ok, err := firstReport(job, phase, cmd)
		if err != nil {
			return nil, err
		}
		if ok {
			values[i] = r.ChildrenSee
		}
	}
	return values, nil
}

// firstReport is IOzone's lines for the first iteration of phase in job;
// false when the job did not run it (or phase is "").
func firstReport(job *result.Job, phase string, cmd Command) (Report, bool, error) {
	for k := range job.Phases {
		if phase == "" || job.Phases[k].Name != phase {
			continue
		}
		r, err := Lines(&job.Phases[k], !cmd.NoStonewall, cmd.OpsPerSec)
		return r, err == nil, err
	}
	return Report{}, false, nil
}
