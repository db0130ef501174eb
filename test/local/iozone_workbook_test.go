package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/iozone"
)

// Real IOzone and ioswarm iozone write -b's worksheet for the same
// command lines: the same cells, in the same order, of the same kinds,
// at the same places, with the same labels (the command line aside,
// which names each tool's own file), and numbers where IOzone has them.
func TestIOzoneWorkbookMatchesRealIOzone(t *testing.T) {
	real, err := exec.LookPath("iozone")
	if err != nil {
		t.Skip("iozone not installed (scripts/install-iozone.sh installs Debian's iozone3): no worksheet to hold ioswarm's against")
	}
	// Two lines, as IOzone takes about 5 s a test here: between them two
	// and several thread counts, kB/s and ops/s, processes and threads,
	// the CPU table, -b with and without -R. The rows' names and order
	// per -i are held against IOzone by the -R table's stdout test.
	for _, line := range []string{
		"-i0 -i1 -+n -r 64k -s 1m -t 2 -+u -R -b",
		"-i0 -O -r 4k -s 1m -t 1 -t 2 -T -b",
	} {
		ours, theirs := t.TempDir(), t.TempDir()
		oursBook, theirsBook := filepath.Join(ours, "out.xls"), filepath.Join(theirs, "out.xls")
		if _, stderr, code := runIn(t, ours, append(append([]string{"iozone"}, strings.Fields(line)...), oursBook)...); code != 0 {
			t.Fatalf("ioswarm iozone %s: exit %d\n%s", line, code, stderr)
		}
		runRealIOzone(t, real, theirs, append(strings.Fields(line), theirsBook))
		got, want := readWorkbook(t, oursBook), readWorkbook(t, theirsBook)
		if len(got) != len(want) {
			t.Errorf("%s: %d cells, IOzone %d:\n got %+v\nwant %+v", line, len(got), len(want), got, want)
			continue
		}
		cpu := false // in the CPU table, whose figures a short run may round to 0
		for i := range want {
			g, w := got[i], want[i]
			cpu = cpu || strings.HasPrefix(w.Text, "CPU utilization report")
			if i == 0 {
				// The command line: ioswarm's names itself and its file.
				if w.Row != 0 || g.Row != 0 || !strings.HasSuffix(g.Text, line+" "+oursBook+" ") {
					t.Errorf("%s: first cell %+v, want the command line (IOzone's %+v)", line, g, w)
				}
				continue
			}
			if g.Row != w.Row || g.Col != w.Col || g.Number != w.Number || g.Text != w.Text {
				t.Errorf("%s: cell %d %+v, IOzone's %+v", line, i, g, w)
			}
			if w.Number && (w.Value == 0) != (g.Value == 0) && !cpu {
				// A test IOzone did not run is 0 in both.
				t.Errorf("%s: cell %d is %v, IOzone's %v: one ran the test, the other not", line, i, g.Value, w.Value)
			}
		}
	}
}

func readWorkbook(t *testing.T, path string) []iozone.Cell {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := iozone.ReadWorkbook(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cells
}
