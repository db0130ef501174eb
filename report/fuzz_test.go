package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzLoadJob feeds arbitrary bytes to LoadJob. It must never panic; what
// it accepts must print in every format and survive a JSON round trip
// unchanged.
func FuzzLoadJob(f *testing.F) {
	f.Add([]byte(`{"ioswarm_version":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		job, err := LoadJob(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if job != nil || !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("bad failure: job %v, error %v", job, err)
			}
			return
		}
		if err := WriteTable(io.Discard, job); err != nil {
			t.Fatalf("WriteTable: %v", err)
		}
		if err := WriteCSV(io.Discard, job, true); err != nil {
			t.Fatalf("WriteCSV: %v", err)
		}
		var first bytes.Buffer
		if err := WriteJSON(&first, job); err != nil {
			t.Fatalf("WriteJSON of a loaded job: %v", err)
		}
		again, err := LoadJob(bytes.NewReader(first.Bytes()), "again.json")
		if err != nil {
			t.Fatalf("reloading our own output: %v", err)
		}
		var second bytes.Buffer
		if err := WriteJSON(&second, again); err != nil {
			t.Fatalf("WriteJSON of the reloaded job: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("JSON round trip is not stable:\n%s\n---\n%s", first.Bytes(), second.Bytes())
		}
	})
}
