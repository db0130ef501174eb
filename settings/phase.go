package settings

import (
	"slices"
	"strings"

	"ioswarm/internal/usage"
)

// Phase names a phase: what a user types in --phases, what a request
// names, and what the result file stores as a phase's "name" (a string
// there, so the type changes no JSON).
type Phase string

// The phases. rewrite and reread are IOzone's second passes: the same
// records over the existing files. The md phases are the metadata
// phases, one operation per file.
const (
	Write     Phase = "write"
	Rewrite   Phase = "rewrite"
	Read      Phase = "read"
	Reread    Phase = "reread"
	RandWrite Phase = "randwrite"
	RandRead  Phase = "randread"
	MDCreate  Phase = "mdcreate"
	MDStat    Phase = "mdstat"
	MDRead    Phase = "mdread"
	MDDelete  Phase = "mddelete"
)

// Phases are all the phases, in the order users usually want them.
var Phases = []Phase{Write, Rewrite, Read, Reread, RandWrite, RandRead, MDCreate, MDStat, MDRead, MDDelete}

// MDPhases are the metadata phases, in the order they make sense.
var MDPhases = []Phase{MDCreate, MDStat, MDRead, MDDelete}

// The predicates below go by the name's family ("rand…", "md…"), so a
// result file holding a phase this build does not know is still drawn
// and tabled by its kind.

// IsRandom says whether p moves records at random offsets, counted as
// IOPS with latency (randwrite, randread).
func (p Phase) IsRandom() bool { return strings.HasPrefix(string(p), "rand") }

// IsMeta says whether p is a metadata phase (mdcreate … mddelete).
func (p Phase) IsMeta() bool { return strings.HasPrefix(string(p), "md") }

// CountsOps says whether p's figure is operations per second (random
// and metadata phases) as well as bytes.
func (p Phase) CountsOps() bool { return p.IsRandom() || p.IsMeta() }

// IsRead says whether p only reads the data files (read, reread,
// randread): such a phase reads the rotated source with --read-shift,
// may run on a kept job's files, and is the one a warm cache flatters.
func (p Phase) IsRead() bool { return p == Read || p == Reread || p == RandRead }

// IsSeqRead says whether p reads the data files in order (read, reread).
func (p Phase) IsSeqRead() bool { return p == Read || p == Reread }

// IsWrite says whether p writes the data files (write, rewrite,
// randwrite).
func (p Phase) IsWrite() bool { return p == Write || p == Rewrite || p == RandWrite }

func (p Phase) String() string { return string(p) }

// PhaseList is the phases a job runs, in order (--phases).
type PhaseList []Phase

// ParsePhases reads --phases: a comma list of phases, each known and
// named once, in the order they run.
func ParsePhases(text string) (PhaseList, error) {
	var list PhaseList
	for _, p := range strings.Split(text, ",") {
		if p = strings.TrimSpace(p); p != "" {
			list = append(list, Phase(p))
		}
	}
	return list, list.Check()
}

// Check checks the list as --phases does: at least one phase, each
// known, none twice.
func (list PhaseList) Check() error {
	if len(list) == 0 {
		return usage.Errorf("--phases: no phase given (known: %s)", PhaseList(Phases).Join(", "))
	}
	for i, p := range list {
		if !slices.Contains(Phases, p) {
			return usage.Errorf("--phases: unknown phase %q (known: %s)", p, PhaseList(Phases).Join(", "))
		}
		if slices.Contains(list[:i], p) {
			return usage.Errorf("--phases: phase %q given twice", p)
		}
	}
	return nil
}

// String is the list as --phases takes it.
func (list PhaseList) String() string { return list.Join(",") }

// Join is the names of the list's phases with sep between them.
func (list PhaseList) Join(sep string) string {
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = string(p)
	}
	return strings.Join(names, sep)
}
