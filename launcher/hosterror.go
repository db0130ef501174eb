package launcher

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"ioswarm/hostlist"
)

// HostError is one node's failure to get ready.
type HostError struct {
	Host string
	Rank int
	Err  error
}

func (e *HostError) Error() string {
	return fmt.Sprintf("host %s rank %d: %v", e.Host, e.Rank, e.Err)
}
func (e *HostError) Unwrap() error { return e.Err }

// HostErrors lists the targets Prepare could not ready, by rank; ranks
// sharing a host share its error.
type HostErrors []*HostError

// Error gives one line per host and cause, naming every rank it concerns,
// in the "host H rank N: cause" form of every other per-rank error.
// Targets on one host share its error; two ports of one address do not.
// Hosts whose causes differ only in the host's own name or address (a key
// refused everywhere, a whole rack unreachable) share one line: the first
// host's, followed by the others in hostlist form, so that a failure of
// 1000 nodes reads as one line and not as 1000.
func (e HostErrors) Error() string {
	type line struct {
		host, cause string
		ranks       []string
		same        []string // other hosts with this cause, but for their names and addresses
	}
	var lines []*line
	byKey := map[string]*line{}
	byShape := map[string]*line{}
	hosts := map[string]bool{}
	for _, h := range e {
		hosts[h.Host] = true
		cause := h.Err.Error()
		key := h.Host + "\x00" + cause
		if l := byKey[key]; l != nil {
			if l.host == h.Host { // else the host is among l.same already
				l.ranks = append(l.ranks, strconv.Itoa(h.Rank))
			}
			continue
		}
		shape := causeShape(h.Host, cause)
		if l := byShape[shape]; l != nil && l.host != h.Host && !slices.Contains(l.same, h.Host) {
			l.same = append(l.same, h.Host)
			byKey[key] = l
			continue
		}
		l := &line{host: h.Host, cause: cause, ranks: []string{strconv.Itoa(h.Rank)}}
		byKey[key] = l
		if byShape[shape] == nil {
			byShape[shape] = l
		}
		lines = append(lines, l)
	}
	text := make([]string, len(lines))
	for i, l := range lines {
		word := "rank"
		if len(l.ranks) > 1 {
			word = "ranks"
		}
		text[i] = fmt.Sprintf("host %s %s %s: %s", l.host, word, strings.Join(l.ranks, ","), l.cause)
		if n := len(l.same); n > 0 {
			nodes := "nodes"
			if n == 1 {
				nodes = "node"
			}
			text[i] += fmt.Sprintf(" (and the same on %d more %s: %s)", n, nodes, hostlist.Compress(l.same))
		}
	}
	if len(text) == 1 {
		return text[0]
	}
	return fmt.Sprintf("%d nodes failed:\n  %s", len(hosts), strings.Join(text, "\n  "))
}

// addrPattern matches the network addresses a cause may hold: IPv4 or
// bracketed IPv6, each with an optional port.
var addrPattern = regexp.MustCompile(`\[[0-9A-Fa-f:.%]+\](:[0-9]+)?|\b[0-9]{1,3}(\.[0-9]{1,3}){3}(:[0-9]+)?\b`)

// causeShape is a cause with the host's own name and every address
// blanked: two nodes' causes of one shape are the same failure.
func causeShape(host, cause string) string {
	shape := addrPattern.ReplaceAllString(cause, "\x00")
	if host == "" {
		return shape
	}
	var b strings.Builder
	for {
		i := strings.Index(shape, host)
		if i < 0 {
			b.WriteString(shape)
			return b.String()
		}
		end := i + len(host)
		if (i == 0 || !isHostByte(shape[i-1])) && (end == len(shape) || !isHostByte(shape[end])) {
			b.WriteString(shape[:i])
			b.WriteByte(0)
		} else {
			b.WriteString(shape[:end])
		}
		shape = shape[end:]
	}
}

// isHostByte reports whether c may continue a host name.
func isHostByte(c byte) bool {
	return c == '-' || c == '.' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// Of returns the error of the target of the given rank, or nil.
func (e HostErrors) Of(rank int) error {
	for _, h := range e {
		if h.Rank == rank {
			return h
		}
	}
	return nil
}
