package report

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"ioswarm/figures"
)

func jobJSON(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, fixtureJob(t)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestJSONRoundTrip(t *testing.T) {
	want := fixtureJob(t)
	raw := jobJSON(t)
	if !bytes.HasSuffix(raw, []byte("}\n")) || !bytes.Contains(raw, []byte("\n  \"job_id\"")) {
		t.Fatalf("WriteJSON output is not indented with a trailing newline:\n%.200s", raw)
	}
	got, err := LoadJob(bytes.NewReader(raw), "results.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip differs:\ngot  %+v\nwant %+v", got, want)
	}
	if err := figures.Check(got); err != nil {
		t.Fatalf("loaded figures do not match their records: %v", err)
	}
}

func TestLoadJobErrors(t *testing.T) {
	full := jobJSON(t)
	cut := len(full) / 2
	badHist := strings.Replace(string(full), `"sub_bits": 7`, `"sub_bits": 3`, 1)
	cases := []struct {
		name, input, want string
	}{
		{"truncated", string(full[:cut]), fmt.Sprintf("results.json: truncated JSON at byte %d", cut)},
		{"truncated in string", `{"ioswarm_version": "0.1`, "results.json: truncated JSON at byte 24"},
		{"empty", "", "results.json: empty file, not an ioswarm result file"},
		{"blank", " \n\t", "results.json: empty file, not an ioswarm result file"},
		{"not JSON", "write 1.2 GB/s\n", "results.json: not valid JSON: invalid character 'w' looking for beginning of value at byte 1"},
		{"trailing text", `{"ioswarm_version":"1"} extra`, "results.json: not valid JSON: invalid character 'e' after top-level value at byte 25"},
		{"array", `[{"ioswarm_version":"1"}]`, "results.json: not an ioswarm result file: the top level is a JSON array, not an object"},
		{"wrong field type", `{"ioswarm_version":"1","phases":[{"bytes":"many"}]}`,
			"results.json: not an ioswarm result file: field phases.bytes holds a JSON string where a number belongs"},
		{"object for list", `{"ioswarm_version":"1","hosts":{}}`,
			"results.json: not an ioswarm result file: field hosts holds a JSON object where a list belongs"},
		{"number out of range", `{"ioswarm_version":"1","phases":[{"ops":1e30}]}`,
			"results.json: not an ioswarm result file: field phases.ops holds number 1e30, which does not fit its type (int64)"},
		{"other JSON", `{"name":"fio","jobs":[]}`, "results.json: not an ioswarm result file (no ioswarm_version)"},
		{"null", "null", "results.json: not an ioswarm result file (no ioswarm_version)"},
		{"bad histogram", badHist, "results.json: phase write iteration 1: latency histogram: histogram has sub_bits 3, this build reads only 7"},
	}
	for _, c := range cases {
		job, err := LoadJob(strings.NewReader(c.input), "results.json")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got error %v\nwant error %s", c.name, err, c.want)
		}
		if job != nil {
			t.Errorf("%s: a job was returned with the error", c.name)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("input/output error") }

func TestLoadJobReadError(t *testing.T) {
	_, err := LoadJob(failingReader{}, "results.json")
	if err == nil || err.Error() != "results.json: reading result file: input/output error" {
		t.Fatalf("error %v", err)
	}
}

// endless serves a result-file prefix and then 'a' forever, filling the
// caller's buffer without allocating, and counts what it served.
type endless struct {
	prefix string
	served int64
}

func (e *endless) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if e.served < int64(len(e.prefix)) {
		n := copy(p, e.prefix[e.served:])
		e.served += int64(n)
		return n, nil
	}
	// Fill by doubling copies: a byte loop over 1 GiB is slow under -race.
	p[0] = 'a'
	for done := 1; done < len(p); done *= 2 {
		copy(p[done:], p[:done])
	}
	e.served += int64(len(p))
	return len(p), nil
}

func TestLoadRefusesStreamOverLimit(t *testing.T) {
	src := &endless{prefix: `{"ioswarm_version":"`}
	_, err := loadJob(src, "pipe", 1<<20)
	if err == nil || err.Error() != "pipe: larger than 1 MiB, the limit for a result file" {
		t.Fatalf("error %v", err)
	}
	if src.served != 1<<20+1 {
		t.Fatalf("read %d bytes; want exactly the limit plus one", src.served)
	}
}

func TestLoadJobRefusesStreamOver1GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB into memory")
	}
	src := &endless{prefix: `{"ioswarm_version":"`}
	_, err := LoadJob(src, "huge.json")
	if err == nil || err.Error() != "huge.json: larger than 1 GiB, the limit for a result file" {
		t.Fatalf("error %v", err)
	}
	if src.served != MaxResultBytes+1 {
		t.Fatalf("read %d bytes; want exactly the limit plus one", src.served)
	}
}
