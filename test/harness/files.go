package harness

import (
	"os"
	"testing"
	"time"

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
