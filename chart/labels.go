package chart

import (
	"fmt"
	"slices"
	"strings"

	"ioswarm/wire"
)

// Labels are the words a person puts on a chart meant for a report: a
// title ("Figure 15: Sequential N to N performance"), a subtitle, the
// axes' labels, and which phases to draw. An empty field keeps what
// ioswarm would write; SubtitleSet tells an empty subtitle given on
// purpose (no second line) from none given.
type Labels struct {
	Title       string
	Subtitle    string
	SubtitleSet bool
	XLabel      string
	YLabel      string // the bandwidth panel's
	IOPSLabel   string // the IOPS (or operations/s) panel's
	Phases      []string
}

// ParsePhases reads a comma-separated list of phases to draw, each one
// ioswarm knows.
func ParsePhases(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(wire.Phases, wire.Phase(p)) {
			return nil, fmt.Errorf("%q is no phase (phases: %s)", p, phaseList())
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

func phaseList() string {
	names := make([]string, len(wire.Phases))
	for i, p := range wire.Phases {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// draws says whether the labels let phase be drawn.
func (l Labels) draws(phase string) bool {
	return len(l.Phases) == 0 || slices.Contains(l.Phases, phase)
}

// title is the chart's title lines: the given title and subtitle where
// given, else ioswarm's head and configuration line.
func (l Labels) title(head, sub string) string {
	if l.Title != "" {
		head = l.Title
	}
	if l.SubtitleSet || l.Subtitle != "" {
		sub = l.Subtitle
	}
	if sub == "" {
		return head
	}
	return head + "\n" + sub
}

// or is v, or def when v is empty.
func or(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
