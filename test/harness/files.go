package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"ioswarm/iozone"
	"ioswarm/report"
	"ioswarm/result"
)

// DirEntries lists the names in dir: what a run left there.
func DirEntries(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// LoadResult reads a run's result file with the checks every reader of
// result files applies (study.Load, behind compare and plot, among them).
func LoadResult(t testing.TB, path string) *result.Job {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	job, err := report.LoadJob(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// LoadIOzoneJob is the one job in an ioswarm iozone result file of one
// thread count (its "iozone" member's run), read with the checks every
// reader of result files applies.
func LoadIOzoneJob(t testing.TB, path string) *result.Job {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := iozone.ReadResult(data)
	if err != nil || len(res.Runs) != 1 || res.Runs[0].Job == nil {
		t.Fatalf("%s: want one run with its job (%v)", path, err)
	}
	raw, err := json.Marshal(res.Runs[0].Job)
	if err != nil {
		t.Fatal(err)
	}
	job, err := report.LoadJob(bytes.NewReader(raw), path)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// Poll calls done every interval until it returns true or within has
// passed, and reports whether it returned true. done is called once more
// after the deadline has passed, so a wait that was starved of the CPU
// still sees the state at its end.
func Poll(within, interval time.Duration, done func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}
