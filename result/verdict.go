package result

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

// MaybeCache says whether a phase carries a cache verdict that does not
// call its figure storage. Phases from before verdicts carry none.
func (p *Phase) MaybeCache() bool { return p.CacheVerdict == VerdictMaybeCache }
