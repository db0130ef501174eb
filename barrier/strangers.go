package barrier

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"
)

// Reasons a connection is refused before it proves the job secret. They
// are counted by source, never logged one by one: a flood would otherwise
// write a line per connection.
const (
	whyNoHello  = "sent no hello"
	whyNotOurs  = "not an ioswarm hello"
	whyTooLarge = "oversized first frame"
	whyVersion  = "another protocol version"
	whyBadProof = "no proof of the job secret"
	whyReplay   = "a replayed hello"
	whyCrowded  = "dropped: too many connections from its address in handshake"
	whyClosing  = "coordinator closing"
)

// strangers counts refused connections by source address and writes one
// log line per source at most every interval: the first refusal from a
// source at once, with its reason, then a summary of what came since.
type strangers struct {
	logf  func(format string, args ...any)
	every time.Duration

	mu     sync.Mutex
	total  map[string]int            // by source, over the coordinator's life
	recent map[string]map[string]int // by source and reason, since the last line
	since  time.Time                 // when recent started collecting
}

func newStrangers(logf func(string, ...any), every time.Duration) *strangers {
	return &strangers{logf: logf, every: every, total: map[string]int{},
		recent: map[string]map[string]int{}, since: time.Now()}
}

// sourceOf is the address part of a remote address: the unit of counting
// and of admission limits (one host's ports are one source).
func sourceOf(addr net.Addr) string {
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// refused counts one connection from src refused for why.
func (s *strangers) refused(src, why string) {
	s.mu.Lock()
	first := s.total[src] == 0
	s.total[src]++
	if !first {
		if s.recent[src] == nil {
			s.recent[src] = map[string]int{}
		}
		s.recent[src][why]++
	}
	s.mu.Unlock()
	if first {
		s.logf("refused a connection from %s: %s (further refusals from %s are counted and summarised every %v)",
			src, why, src, s.every)
	}
}

// flush writes one line per source refused since the last flush.
func (s *strangers) flush() {
	s.mu.Lock()
	recent, since := s.recent, s.since
	s.recent, s.since = map[string]map[string]int{}, time.Now()
	s.mu.Unlock()
	srcs := make([]string, 0, len(recent))
	for src := range recent {
		srcs = append(srcs, src)
	}
	sort.Strings(srcs)
	took := time.Since(since).Round(100 * time.Millisecond)
	for _, src := range srcs {
		n, parts := countParts(recent[src])
		word := "connections"
		if n == 1 {
			word = "connection"
		}
		s.logf("refused %d more %s from %s in the last %v: %s", n, word, src, took, parts)
	}
}

// countParts sums reasons and lists them, largest first.
func countParts(byWhy map[string]int) (int, string) {
	type part struct {
		why string
		n   int
	}
	var parts []part
	total := 0
	for why, n := range byWhy {
		parts = append(parts, part{why, n})
		total += n
	}
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].n != parts[j].n {
			return parts[i].n > parts[j].n
		}
		return parts[i].why < parts[j].why
	})
	text := make([]string, len(parts))
	for i, p := range parts {
		text[i] = fmt.Sprintf("%d %s", p.n, p.why)
	}
	return total, strings.Join(text, ", ")
}

// counts returns the totals by source.
func (s *strangers) counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.total))
	for src, n := range s.total {
		out[src] = n
	}
	return out
}

// summary is "1234 from 10.0.0.9, 5 from 10.0.0.3" (the largest sources
// first, at most five), or "" when nothing was refused.
func (s *strangers) summary() (int, string) {
	counts := s.counts()
	total := 0
	srcs := make([]string, 0, len(counts))
	for src, n := range counts {
		srcs = append(srcs, src)
		total += n
	}
	sort.Slice(srcs, func(i, j int) bool {
		if counts[srcs[i]] != counts[srcs[j]] {
			return counts[srcs[i]] > counts[srcs[j]]
		}
		return srcs[i] < srcs[j]
	})
	var text []string
	for i, src := range srcs {
		if i == 5 {
			text = append(text, fmt.Sprintf("and %d more sources", len(srcs)-5))
			break
		}
		text = append(text, fmt.Sprintf("%d from %s", counts[src], src))
	}
	return total, strings.Join(text, ", ")
}

// run flushes every interval until stop closes, then once more.
func (s *strangers) run(stop <-chan struct{}) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			s.flush()
			return
		case <-t.C:
			s.flush()
		}
	}
}

// Rejected returns how many connections the coordinator refused before
// they proved the job secret, by source address (IP), over its life so
// far: the traffic of strangers on the port, for the result file.
func (c *Coordinator) Rejected() map[string]int { return c.strangers.counts() }

// StrangerError is an error of the join (or of a rank that failed to
// join) that happened while the coordinator was refusing connections
// from strangers: such traffic may be the cause, and the error says so.
type StrangerError struct {
	Err     error
	Refused int    // connections refused before proving the secret
	Sources string // the largest sources, "N from ADDR, ..."
}

func (e *StrangerError) Error() string {
	return fmt.Sprintf("%v (meanwhile the coordinator refused %d connections that did not prove the job secret: %s; "+
		"such traffic on its port can keep ranks from joining)", e.Err, e.Refused, e.Sources)
}

func (e *StrangerError) Unwrap() error { return e.Err }

// JoinError returns err, explained by the strangers' traffic when the
// coordinator has refused any connection; nil stays nil.
func (c *Coordinator) JoinError(err error) error {
	if err == nil {
		return nil
	}
	n, sources := c.strangers.summary()
	if n == 0 {
		return err
	}
	return &StrangerError{Err: err, Refused: n, Sources: sources}
}
