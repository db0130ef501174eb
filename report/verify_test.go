package report

import (
	"bytes"
	"strings"
	"testing"

	"ioswarm/result"
)

// A verified read says so under the table, once per phase name; an
// unverified job prints no such line.
func TestTableSaysVerificationWasTimed(t *testing.T) {
	job := &result.Job{Complete: true, Phases: []result.Phase{
		{Name: "write", Iteration: 1},
		{Name: "read", Iteration: 1, Verified: true},
		{Name: "randread", Iteration: 1, Verified: true},
		{Name: "read", Iteration: 2, Verified: true},
	}}
	var out bytes.Buffer
	if err := WriteTable(&out, job); err != nil {
		t.Fatal(err)
	}
	want := "read, randread: data verified while reading, inside the timed window"
	if strings.Count(out.String(), want) != 1 {
		t.Fatalf("table lacks one %q line:\n%s", want, out.String())
	}
	for i := range job.Phases {
		job.Phases[i].Verified = false
	}
	out.Reset()
	if err := WriteTable(&out, job); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "verified") {
		t.Fatalf("unverified job mentions verification:\n%s", out.String())
	}
}
