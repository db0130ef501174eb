package local

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/golden"
	"ioswarm/test/harness"
)

// iozoneCase is one IOzone command line run by both tools in the same
// order of steps; each tool runs the steps of a case in a directory of
// its own, so a read finds the files its own write kept.
type iozoneCase struct {
	name  string
	steps [][]string // each compared; earlier ones make the files later ones read
}

var iozoneCases = []iozoneCase{
	{"kept", [][]string{
		strings.Fields("-i0 -c -e -w -r 64k -s 1m -t 2 -R"),       // write
		strings.Fields("-i1 -w -r 64k -s 1m -t 2 -R"),             // read-only: "Initial write" 0.00 and a row with no name
		strings.Fields("-i2 -O -w -r 64k -s 1m -t 2 -+n -R -C"),   // random, ops/sec, per-child lines
		strings.Fields("-i1 -+n -x -w -r 64k -s 1m -t 2 -R"),      // -+n read: "Re-read" 0.00, stonewall off
		strings.Fields("-i0 -i1 -i2 -+n -w -r 64k -s 1m -t 2 -R"), // every test at once
	}},
	{"counts", [][]string{
		strings.Fields("-i0 -+n -r 64k -s 1m -t 1 -t 2 -R -T"), // several -t, threads
		strings.Fields("-i0 -i1 -C -x -r 64k -s 1m -l 1 -u 2 -R"),
	}},
	{"cpu", [][]string{ // -+u: the CPU line, -C's wall/cpu/%, the -R CPU table
		strings.Fields("-i0 -c -e -w -r 64k -s 1m -t 2 -+u -R -C"),
		strings.Fields("-i1 -w -r 64k -s 1m -t 2 -R -+u"),              // read-only: the CPU table's "Rewrite" row
		strings.Fields("-i2 -O -w -r 64k -s 1m -t 2 -+n -R -C -+u"),    // random on IOzone's "Read"/"Re-read" CPU rows
		strings.Fields("-i0 -i1 -+n -x -r 64k -s 1m -t 1 -t 2 -+u -R"), // several -t, -x
	}},
	{"sync", [][]string{ // -o: O_SYNC, IOzone's "SYNC Mode." splash line where -o came; -+D: O_DSYNC
		strings.Fields("-i0 -c -o -e -w -r 64k -s 1m -t 2 -R"),
		strings.Fields("-i1 -o -r 64k -s 1m -t 2 -R"),
		strings.Fields("-i0 -+r -r 64k -s 1m -t 2"),       // O_RSYNC|O_SYNC: Linux's O_SYNC, another line
		strings.Fields("-i0 -+D -e -r 64k -s 1m -t 2 -R"), // O_DSYNC, IOzone's ">>> O_DSYNC mode enabled. <<<"
	}},
}

// IOzone's patterns that scripts grep and count.
var iozonePatterns = []string{"Children see", "Parent sees", "kB/sec", "ops/sec", "Min xfer", "Child[",
	"Throughput test with", "Command line used:", "Output is in", "iozone test complete.", "\"Throughput report",
	"CPU Utilization:", "CPU utilization:", "\"CPU utilization report", "wall="}

// Real IOzone and ioswarm iozone on the same command lines: the same
// stdout lines in the same order once values are masked, the same counts
// for IOzone's grep patterns, the same -R table shape; and the masked
// stdout of every step as a golden file, checked without IOzone too.
func TestIOzoneStdoutMatchesRealIOzone(t *testing.T) {
	real, err := exec.LookPath("iozone")
	if err != nil {
		t.Log("iozone not installed (scripts/install-iozone.sh installs Debian's iozone3): checking ioswarm against the golden files only")
	}
	for _, c := range iozoneCases {
		t.Run(c.name, func(t *testing.T) {
			ours, theirs := t.TempDir(), t.TempDir()
			for i, step := range c.steps {
				label := fmt.Sprintf("%s step %d (%s)", c.name, i, strings.Join(step, " "))
				stdout, stderr, code := runIn(t, ours, append([]string{"iozone"}, step...)...)
				if code != 0 {
					t.Fatalf("%s: ioswarm exit %d\n%s", label, code, stderr)
				}
				got := maskIOzone(stdout)
				golden.Check(t, fmt.Sprintf("iozone/%s-%d.golden", c.name, i), []byte(got))
				if real == "" {
					continue
				}
				want := poorTimerRE.ReplaceAllString(runRealIOzone(t, real, theirs, step), "")
				compareIOzone(t, label, stdout, want)
			}
		})
	}
}

func runRealIOzone(t *testing.T, path, dir string, args []string) string {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	o := harness.RunCmd(t, cmd, 3*time.Minute)
	if o.Code != 0 {
		t.Fatalf("iozone %s: exit %d\n%s%s", strings.Join(args, " "), o.Code, o.Stdout, o.Stderr)
	}
	return o.Stdout
}

// compareIOzone holds ioswarm's stdout against IOzone's.
func compareIOzone(t *testing.T, label, ours, theirs string) {
	t.Helper()
	o, r := strings.Split(maskIOzone(ours), "\n"), strings.Split(maskIOzone(theirs), "\n")
	if !slices.Equal(o, r) {
		t.Errorf("%s: stdout lines differ from IOzone's (values masked):\n%s", label, lineDiff(o, r))
	}
	for _, p := range iozonePatterns {
		if a, b := strings.Count(ours, p), strings.Count(theirs, p); a != b {
			t.Errorf("%s: %d lines with %q, IOzone has %d", label, a, p, b)
		}
	}
	if a, b := excelShape(ours), excelShape(theirs); !slices.Equal(a, b) {
		t.Errorf("%s: -R table %v, IOzone's %v", label, a, b)
	}
}

// IOzone warns after its last line when a child's time was under its
// timer's resolution, which on a fast machine and tiny files depends on
// timing alone; ioswarm's nanosecond clock has no such case.
var poorTimerRE = regexp.MustCompile(`Timer resolution is poor.*\n.*\n`)

var (
	valueRE = regexp.MustCompile(` *-?[0-9]+\.[0-9]+`)
	runRE   = regexp.MustCompile(`(Run began:|Command line used:|Build:) .*`)
	cellRE  = regexp.MustCompile(`^"(.{15}) "( .*)$`)
)

// maskIOzone replaces what describes the run (values, date, the command
// as typed, the machine's build name) by fixed text, keeping every line, tab and label.
func maskIOzone(s string) string {
	s = runRE.ReplaceAllString(s, "$1 ...")
	return valueRE.ReplaceAllString(s, " #")
}

// excelShape is the -R table as a spreadsheet import sees it: each row's
// 15-character label and its number of cells, or "bad cells" where the
// cells are not IOzone's " %10.2f " each.
func excelShape(s string) []string {
	var shape []string
	for _, line := range strings.Split(s, "\n") {
		m := cellRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cells := strings.Fields(m[2])
		var again strings.Builder
		for _, c := range cells {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				break
			}
			fmt.Fprintf(&again, " %10.2f ", v)
		}
		if again.String() != m[2] {
			shape = append(shape, fmt.Sprintf("%q bad cells %q", m[1], m[2]))
			continue
		}
		shape = append(shape, fmt.Sprintf("%q x%d", m[1], len(cells)))
	}
	return shape
}

// lineDiff shows the first lines where a and b part, with some context.
func lineDiff(a, b []string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	var out strings.Builder
	for k := max(0, i-3); k < i+6; k++ {
		fmt.Fprintf(&out, "%3d ioswarm %-60q  iozone %q\n", k, at(a, k), at(b, k))
	}
	return out.String()
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<none>"
}

// The header's options that describe the machine: -M prints uname -a
// where it came among the options (on a machine whose line is 80 bytes or
// more IOzone joins the next option's line to it and prints that line
// again, and ioswarm the same); -S and -L the processor cache IOzone was
// told. Not in the golden files: the machine differs from one run of the
// suite to another.
func TestIOzoneMachineLinesMatchRealIOzone(t *testing.T) {
	real, err := exec.LookPath("iozone")
	if err != nil {
		t.Skip("iozone not installed (scripts/install-iozone.sh installs Debian's iozone3): no -M line to hold ioswarm's against")
	}
	for _, line := range []string{"-i0 -r 64k -s 1m -t 1 -M -e", "-i0 -r 64k -s 1m -t 1 -e -M -S 2048 -L 64"} {
		step := strings.Fields(line)
		stdout, stderr, code := runIn(t, t.TempDir(), append([]string{"iozone"}, step...)...)
		if code != 0 {
			t.Fatalf("ioswarm iozone %s: exit %d\n%s", line, code, stderr)
		}
		if strings.Contains(line, "-S") && !strings.Contains(stdout, "size set to 2048 kBytes.\n\tProcessor cache line size set to 64 bytes.") {
			t.Errorf("%s: no -S and -L in the header:\n%s", line, stdout)
		}
		if !strings.Contains(stdout, "\n\n\tMachine = ") {
			t.Errorf("%s: no machine line after an empty line:\n%s", line, stdout)
		}
		want := poorTimerRE.ReplaceAllString(runRealIOzone(t, real, t.TempDir(), step), "")
		compareIOzone(t, line, stdout, want)
	}
}
