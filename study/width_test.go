package study

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"ioswarm/internal/golden"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/settings"
)

// studyShape is what a synthetic study sweeps. Its figures are set on
// the phases directly (no thread records): the tables read only the
// reduced figures, and these reach the widest values a cluster gives.
type studyShape struct {
	label      string
	phases     settings.PhaseList
	threads    []int
	depths     []int // nil: no depth sweep
	iterations int
	peakGBs    float64 // sequential bandwidth at the widest point
	peakIOPS   float64
	// mark, when set, changes a phase after its figures are set.
	mark func(threads, depth int, p *result.Phase)
}

func syntheticSweep(sh studyShape) *Sweep {
	depths := sh.depths
	if depths == nil {
		depths = []int{1}
	}
	s := &Sweep{Version: "0.1.0-test", Kind: Kind, Label: sh.label, Threads: sh.threads, Complete: true, LaunchNS: 4_200_000_000,
		Setup: Setup{Phases: sh.phases, Sizing: SizingTotal, Total: 8 << 40, BlockSize: 16 << 20,
			RandBlockSize: 4096, Dir: "/lustre/scratch/acceptance/ioswarm-study-2026", Iterations: sh.iterations,
			Fsync: true}}
	if sh.depths != nil {
		s.IODepths, s.Setup.Engine = sh.depths, "io_uring"
	}
	for _, n := range sh.threads {
		for _, d := range depths {
			s.Points = append(s.Points, syntheticJob(sh, n, d))
		}
	}
	return s
}

func syntheticJob(sh studyShape, n, depth int) *result.Job {
	job := &result.Job{Complete: true, ElapsedNS: 90e9, OutsidePhasesNS: 3e9,
		Config: result.Config{Threads: n, IODepth: depth, Phases: sh.phases, Iterations: sh.iterations}}
	for h := 0; h < 16; h++ {
		job.Hosts = append(job.Hosts, result.Host{Host: fmt.Sprintf("node%02d", h+1), Rank: h, FSType: "lustre"})
	}
	// A rising curve that flattens at 64 threads × depth, like storage.
	share := float64(min(n*depth, 64)) / 64
	for _, name := range sh.phases {
		for it := 1; it <= sh.iterations; it++ {
			wobble := 1 + 0.03*float64(it-2)
			bw := sh.peakGBs * 1e9 * share * wobble
			p := result.Phase{Name: string(name), Iteration: it, Bandwidth: bw, FirstDoneBandwidth: bw * 0.97,
				SumOfRates: bw * 1.02, IOPS: sh.peakIOPS * share * wobble}
			if sh.mark != nil {
				sh.mark(n, depth, &p)
			}
			job.Phases = append(job.Phases, p)
		}
	}
	return job
}

// The studies a storage engineer usually runs, at their widest.
func usualStudies() map[string][2]*Sweep {
	seq := settings.PhaseList{"write", "read", "randwrite", "randread"}
	threads := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
	scaling := func(label string, peak float64) *Sweep {
		return syntheticSweep(studyShape{label: label, phases: seq, threads: threads, iterations: 3,
			peakGBs: peak, peakIOPS: 2_345_678})
	}
	depth := func(label string) *Sweep {
		return syntheticSweep(studyShape{label: label, phases: settings.PhaseList{"randwrite", "randread"},
			threads: []int{1, 4, 16, 64}, depths: []int{1, 4, 16, 64}, iterations: 3, peakGBs: 9, peakIOPS: 1_234_567})
	}
	marked := func(label string) *Sweep {
		s := syntheticSweep(studyShape{label: label, phases: seq, threads: threads, iterations: 1,
			peakGBs: 1234, peakIOPS: 98_765_432, mark: func(n, _ int, p *result.Phase) {
				p.Stonewalled = n >= 256
				if p.Name == "read" || p.Name == "randread" {
					p.CacheVerdict = result.VerdictMaybeCache
				}
			}})
		last := s.Points[len(s.Points)-1]
		last.Complete = false
		last.Error = "rank 7 on node08: write /lustre/scratch/acceptance/ioswarm-study-2026/ioswarm-x/t511.dat: no space left on device"
		s.Complete, s.Error = false, "point 512 threads: "+last.Error
		s.Failures = []PointFailure{{Threads: 512, Attempt: 1, Error: "checking nodes: host node08 rank 7: connection lost: read tcp 10.0.0.1:45141->10.0.0.8:59664: read: connection reset by peer", Retried: true},
			{Threads: 512, Attempt: 2, Error: last.Error}}
		return s
	}
	return map[string][2]*Sweep{
		"scaling": {scaling("lustre-2024", 23.4), scaling("gpfs-2026", 41.9)},
		"depths":  {depth("nvme-a"), depth("nvme-b")},
		"marks":   {marked("cached-a"), marked("cached-b")},
	}
}

// Every line of the compact sweep and compare tables keeps to 80
// columns, for the fixture studies and the usual ones at their widest.
func TestCompactTablesFit80Columns(t *testing.T) {
	studies := usualStudies()
	a, b := fixtures(t)
	studies["fixture"] = [2]*Sweep{a, b}
	for name, pair := range studies {
		for i, s := range pair {
			var buf bytes.Buffer
			if err := WriteCompactTable(&buf, s); err != nil {
				t.Fatal(err)
			}
			checkWidth(t, fmt.Sprintf("%s sweep %d", name, i), buf.String())
		}
		var buf bytes.Buffer
		if err := WriteCompactCompare(&buf, pair[0], pair[1]); err != nil {
			t.Fatal(err)
		}
		checkWidth(t, name+" compare", buf.String())
	}
}

func checkWidth(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > report.Width {
			t.Errorf("%s: a line of %d columns:\n%s\nin:\n%s", what, n, line, out)
		}
	}
}

// The compact tables of the usual studies, held so that a change of
// their columns shows in review; --details stays sweep_table.golden and
// compare_table.golden, today's tables byte for byte.
func TestCompactTablesGolden(t *testing.T) {
	a, b := fixtures(t)
	studies := usualStudies()
	studies["fixture"] = [2]*Sweep{a, b}
	for _, name := range []string{"fixture", "scaling", "depths", "marks"} {
		pair := studies[name]
		var sweep, compare bytes.Buffer
		if err := WriteCompactTable(&sweep, pair[1]); err != nil {
			t.Fatal(err)
		}
		if err := WriteCompactCompare(&compare, pair[0], pair[1]); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "compact_sweep_"+name+".golden", sweep.Bytes())
		golden.Check(t, "compact_compare_"+name+".golden", compare.Bytes())
	}
}
