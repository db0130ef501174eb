package result

import "slices"

// The cache verdicts a read phase and each of its nodes can get.
const (
	VerdictStorage    = "storage"
	VerdictMaybeCache = "maybe-cache"
)

// NodeVerdict says whether one node's part of a read phase is known to
// come from storage, and why (Reason is a short code scripts can match,
// Detail the sentence a person reads).
type NodeVerdict struct {
	Host    string `json:"host"`
	Rank    int    `json:"rank"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Detail  string `json:"detail,omitempty"`
}

// MaybeCache says whether a phase's figure may come from a cache: its
// verdict is maybe-cache, or (in files from before verdicts) its sizing
// guard warned.
func (p *Phase) MaybeCache() bool {
	return p.CacheVerdict == VerdictMaybeCache || (p.CacheGuard != nil && p.CacheGuard.Warned)
}

// SkewShare is the part of a phase's window its threads' start skew may
// take before the figure is called skewed (and over a millisecond): the
// window, and so the bandwidth, then holds that much of some threads'
// waiting.
const SkewShare = 0.01

// Skewed says whether the phase's threads began far apart: start skew
// over SkewShare of the window and over a millisecond.
func (p *Phase) Skewed() bool {
	return p.WindowNS > 0 && len(p.Threads) >= 2 && float64(p.StartSkewNS) > SkewShare*float64(p.WindowNS) &&
		p.StartSkewNS > 1e6
}

// CacheReasons lists the distinct reason codes of the nodes whose
// verdict is maybe-cache, in node order.
func (p *Phase) CacheReasons() []string {
	var out []string
	for _, v := range p.CacheVerdicts {
		if v.Verdict == VerdictMaybeCache && !slices.Contains(out, v.Reason) {
			out = append(out, v.Reason)
		}
	}
	return out
}
