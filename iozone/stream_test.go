package iozone

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ioswarm/result"
)

// The testdata files iozone-3.489-*.txt are real IOzone 3.489's stdout
// (Debian's iozone3) for -+m command lines, its clients started by a
// stand-in for rsh on one machine. ioswarm's stream for the same
// command line must have the same lines once the values are masked:
// "Test running:", "Test cleanup:" (not with -w), no "Parent sees".
func TestStreamMatchesRealIOzoneDistributed(t *testing.T) {
	cases := []struct {
		transcript string
		args       string
		phases     []string
	}{
		{"iozone-3.489-dist-two-counts.txt", "-i0 -i1 -+n -r 64k -s 1m -t 1 -t 2 -C -R -+m clients", []string{"write", "read"}},
		{"iozone-3.489-dist-keep.txt", "-i0 -c -e -w -r 64k -s 1m -t 2 -+m clients", []string{"write", "rewrite"}},
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
			jobs = append(jobs, evenJob(n, c.phases))
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

// evenJob is a job of n threads writing 1 MiB each in 64 KiB records,
// one second each, for every phase named.
func evenJob(n int, phases []string) *result.Job {
	j := &result.Job{Config: result.Config{Threads: n, FileSize: mib, BlockSize: 64 << 10}}
	for _, name := range phases {
		p := result.Phase{Name: name}
		for i := 0; i < n; i++ {
			p.Threads = append(p.Threads, result.Thread{Thread: i, Bytes: mib, Ops: 16, StartNS: 0, EndNS: sec, BytesAtFirstDone: mib})
		}
		j.Phases = append(j.Phases, p)
	}
	return j
}

var (
	valueRE = regexp.MustCompile(` *-?[0-9]+\.[0-9]+`)
	runRE   = regexp.MustCompile(`(Run began:|Command line used:|Build:) .*`)
)

// maskValues replaces what describes one run (values, date, the command
// as typed) by fixed text, keeping every line, tab and label.
func maskValues(s string) string {
	return valueRE.ReplaceAllString(runRE.ReplaceAllString(s, "$1 ..."), " #")
}
