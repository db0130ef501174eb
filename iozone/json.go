package iozone

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"ioswarm/result"
)

// Result is what ioswarm iozone writes as JSON (--format json, --output):
// one shape for any number of thread counts. Every value of IOzone's
// report lines, the -R table's rows, and each thread count's whole
// ioswarm result (every record the lines come from) beside them.
type Result struct {
	IOzoneVersion string      `json:"iozone_version"` // the IOzone whose lines these are
	CommandLine   string      `json:"command_line"`
	Unit          string      `json:"unit"`      // "kB" (kB/sec) or "ops" (ops/sec, -O)
	Stonewall     bool        `json:"stonewall"` // false with -x
	Distributed   bool        `json:"distributed"`
	RecordKB      int64       `json:"record_kb"`
	Runs          []RunResult `json:"runs"`
	ExcelRows     []ExcelRow  `json:"excel_rows"` // -R's rows, whether or not -R was given
	// CPULines says -+u was given (stdout has IOzone's CPU lines);
	// CPURows are the rows of -R's CPU table (CPURows), and every test
	// and child has its CPU figures, whether or not -+u was given.
	CPULines bool       `json:"cpu_lines"`
	CPURows  []ExcelRow `json:"cpu_rows"`
}

// RunResult is one thread count: IOzone's lines for each test it ran and
// ioswarm's result of that job.
type RunResult struct {
	Threads int          `json:"threads"`
	Tests   []TestResult `json:"tests"`
	Job     *result.Job  `json:"job"`
}

// TestResult holds the values of one test's IOzone lines, with rates in
// Unit per second, and ioswarm's own figures over the global window.
type TestResult struct {
	Test        string        `json:"test"`  // IOzone's name in its lines ("initial writers")
	Row         string        `json:"row"`   // its -R row ("Initial write")
	Phase       string        `json:"phase"` // ioswarm's phase
	Iteration   int           `json:"iteration"`
	Children    int           `json:"children"`
	ChildrenSee float64       `json:"children_see"`
	ParentSees  float64       `json:"parent_sees"` // computed even where IOzone (-+m) does not print it
	Min         float64       `json:"min_throughput"`
	Max         float64       `json:"max_throughput"`
	Avg         float64       `json:"avg_throughput"`
	MinXfer     float64       `json:"min_xfer"`
	Child       []ChildResult `json:"child"` // the -C lines, in child order
	CPU         CPUUse        `json:"cpu"`   // the -+u line (seconds, percent)

	// ioswarm's own figures: bytes/s and operations/s over the global window.
	Bandwidth float64 `json:"ioswarm_bandwidth"`
	IOPS      float64 `json:"ioswarm_iops"`
	Note      string  `json:"ioswarm_note"` // how ioswarm's figure differs from the lines
	CacheNote string  `json:"cache_note,omitempty"`
	DropNote  string  `json:"drop_note,omitempty"` // the page cache was emptied before this reading test, as IOzone never does
}

// ChildResult is one -C line.
type ChildResult struct {
	Xfer       float64 `json:"xfer"`
	Throughput float64 `json:"throughput"`
	CPU        CPUUse  `json:"cpu"` // -+u's wall, cpu and % on the -C line
}

// NewResult gathers the IOzone lines of every job of cmd.
func NewResult(cmd Command, commandLine string, jobs []*result.Job) (*Result, error) {
	r := &Result{IOzoneVersion: Version, CommandLine: commandLine, Unit: "kB", Stonewall: !cmd.NoStonewall,
		Distributed: cmd.Distributed(), RecordKB: cmd.RecordSize >> 10, Runs: []RunResult{}}
	if cmd.OpsPerSec {
		r.Unit = "ops"
	}
	if len(jobs) > 0 {
		r.RecordKB = recordSize(jobs[0], cmd) >> 10
	}
	for _, job := range jobs {
		run := RunResult{Threads: job.Config.Threads, Tests: []TestResult{}, Job: job}
		for i := range job.Phases {
			p := &job.Phases[i]
			if _, ok := testFor(p.Name); !ok {
				continue
			}
			l, err := Lines(p, !cmd.NoStonewall, cmd.OpsPerSec)
			if err != nil {
				return nil, err
			}
			run.Tests = append(run.Tests, testResult(l, p.Iteration))
		}
		r.Runs = append(r.Runs, run)
	}
	rows, err := ExcelRows(jobs, cmd)
	if err != nil {
		return nil, err
	}
	r.ExcelRows = rows
	r.CPULines = cmd.CPUUtil
	if r.CPURows, err = CPURows(jobs, cmd); err != nil {
		return nil, err
	}
	return r, nil
}

func testResult(l Report, iteration int) TestResult {
	t := TestResult{Test: l.Label, Row: l.Row, Phase: l.Phase, Iteration: iteration, Children: l.Children,
		ChildrenSee: l.ChildrenSee, ParentSees: l.ParentSees, Min: l.Min, Max: l.Max, Avg: l.Avg, MinXfer: l.MinXfer,
		Child: []ChildResult{}, CPU: l.CPU, Bandwidth: l.Bandwidth, IOPS: l.IOPS, Note: l.Explanation(), CacheNote: l.CacheNote,
		DropNote: l.DropNote()}
	for _, c := range l.Child {
		t.Child = append(t.Child, ChildResult{Xfer: c.Xfer, Throughput: c.Throughput, CPU: c.CPU})
	}
	return t
}

// WriteJSON writes r as ioswarm's result file of the first thread
// count, with every IOzone line's value (and every thread count's job)
// under "iozone": one shape for any number of -t, and a file that
// scripts, compare and plot read as they read `ioswarm run --output`,
// as they did when ioswarm iozone wrote only the job.
func (r *Result) WriteJSON(w io.Writer) error {
	head := []byte("{}")
	if len(r.Runs) > 0 && r.Runs[0].Job != nil {
		var err error
		if head, err = json.Marshal(r.Runs[0].Job); err != nil {
			return err
		}
	}
	lines, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// The job's object, its closing brace replaced by the "iozone" member.
	var raw bytes.Buffer
	raw.Write(bytes.TrimSuffix(bytes.TrimSpace(head), []byte("}")))
	if len(bytes.TrimSpace(head)) > 2 {
		raw.WriteByte(',')
	}
	raw.WriteString(`"iozone":`)
	raw.Write(lines)
	raw.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, raw.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// ReadResult reads what WriteJSON wrote: the IOzone lines and every
// thread count's job.
func ReadResult(data []byte) (*Result, error) {
	var file struct {
		IOzone *Result `json:"iozone"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, err
	}
	if file.IOzone == nil {
		return nil, errors.New("no \"iozone\" member: not a file of ioswarm iozone")
	}
	return file.IOzone, nil
}
