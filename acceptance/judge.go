package acceptance

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"ioswarm/study"
)

// ErrNotMet is returned (wrapped) when an expectation was not met: the
// command exits with its own code, so a site's acceptance script can
// tell a failed expectation from a failed run.
var ErrNotMet = errors.New("an expectation was not met")

// Verdict is one expectation judged against its point.
type Verdict struct {
	Expectation
	Found      bool    // the study has a complete point of that phase and thread count
	Mean       float64 // the point's figure, mean over its iterations
	Worst      float64 // its worst iteration (the lowest for >=, the highest for <=)
	Iterations int
	Pass       bool
	// Every says every iteration met the expectation, not the mean alone:
	// a pass whose worst iteration missed is within the run-to-run noise.
	Every bool
}

// Judge holds each expectation against the study's complete points. A
// point passes when its mean meets the expectation; Every says whether
// each iteration did too.
func Judge(s *study.Sweep, es []Expectation) []Verdict {
	out := make([]Verdict, len(es))
	for i, e := range es {
		v := Verdict{Expectation: e}
		for _, f := range s.Figures() {
			if f.Phase != e.Phase || f.Threads != e.Threads || !f.Complete {
				continue
			}
			st := f.BandwidthStat
			v.Mean = f.Bandwidth
			if e.Ops {
				st, v.Mean = f.IOPSStat, f.IOPS
			}
			v.Found, v.Iterations, v.Worst = true, f.Iterations, v.Mean
			if f.Iterations > 1 {
				v.Worst = st.Min
				if e.AtMost {
					v.Worst = st.Max
				}
			}
		}
		v.Pass = v.Found && meets(e, v.Mean)
		v.Every = v.Pass && meets(e, v.Worst)
		out[i] = v
	}
	return out
}

func meets(e Expectation, x float64) bool {
	if e.AtMost {
		return x <= e.Value
	}
	return x >= e.Value
}

// Failures counts the expectations not met (or with no point).
func Failures(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if !v.Pass {
			n++
		}
	}
	return n
}

// WriteTable prints the verdicts, one a line, and a closing line with
// the count of passes.
func WriteTable(w io.Writer, vs []Verdict) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "expectation\tmeasured\tverdict")
	for _, v := range vs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Text, v.MeasuredText(), v.VerdictText())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	failed := Failures(vs)
	_, err := fmt.Fprintf(w, "expectations: %d passed, %d failed\n", len(vs)-failed, failed)
	return err
}

// MeasuredText is the point's figure in the expectation's own unit, and
// its worst iteration where it ran several.
func (v Verdict) MeasuredText() string {
	if !v.Found {
		return "no complete point"
	}
	scale := rateUnits[strings.ToLower(v.Unit)].scale
	text := fmt.Sprintf("%.4g %s", v.Mean/scale, v.Unit)
	if v.Iterations > 1 {
		word := "min"
		if v.AtMost {
			word = "max"
		}
		text += fmt.Sprintf(" (%s %.4g of %d)", word, v.Worst/scale, v.Iterations)
	}
	return text
}

// VerdictText is pass or FAIL, and for a pass whose worst iteration
// missed, that it passed on the mean alone.
func (v Verdict) VerdictText() string {
	switch {
	case !v.Found:
		return "FAIL: not measured"
	case !v.Pass:
		return "FAIL"
	case v.Iterations > 1 && !v.Every:
		return "pass on the mean (an iteration missed: within noise)"
	}
	return "pass"
}
