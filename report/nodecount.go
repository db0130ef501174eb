package report

import (
	"strconv"

	"ioswarm/result"
)

// nodesText counts the job's nodes by name, as a sweep's chart does: two
// ranks on one machine (an IOzone -+m file that names a host once per
// thread, or --local-ranks) are one node. The ranks follow in brackets
// when they outnumber the nodes.
func nodesText(hosts []result.Host) string {
	names := map[string]bool{}
	for _, h := range hosts {
		names[h.Host] = true
	}
	text := strconv.Itoa(len(names))
	if len(hosts) > len(names) {
		text += " (" + strconv.Itoa(len(hosts)) + " ranks)"
	}
	return text
}
