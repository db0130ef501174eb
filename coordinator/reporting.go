package coordinator

import (
	"fmt"
	"strings"

	"ioswarm/nodefacts"
)

// reportingWarning names the nodes that hand freed memory back to their
// hypervisor (nodefacts' FreePageReporting), each once, when the job
// moves data through their page cache: a buffered figure there also
// depends on when memory was last freed before the phase (a cache drop,
// the files of a run before deleted), which ioswarm neither controls
// nor records. "" when no node does, or the job bypasses the cache.
func (j *job) reportingWarning(facts []nodefacts.Facts) string {
	if j.o.Direct || j.o.onlyMD() {
		return ""
	}
	var hosts []string
	seen := map[string]bool{}
	for r, f := range facts {
		if h := j.s.targets[r].Host; f.FreePageReporting && len(j.threads[r]) > 0 && !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return ""
	}
	word := "host"
	if len(hosts) > 1 {
		word = "hosts"
	}
	return fmt.Sprintf("%s %s: the kernel hands freed memory back to its hypervisor (virtio-balloon free page reporting): "+
		"a buffered figure there also depends on when memory was last freed before the phase (a cache drop, deleted files), "+
		"by 2.5-6x on a 2-core test VM (README, Virtual machines)",
		word, strings.Join(hosts, ", "))
}

// warnOncePerSession records msg among the job's warnings, as warn does,
// but logs it only the first time a job of the session has it: a fact of
// the nodes holds for every job of a session (every point of a sweep),
// and said at each it would bury the warnings about the figures.
func (j *job) warnOncePerSession(msg string) {
	j.res.Warnings = append(j.res.Warnings, msg)
	j.s.mu.Lock()
	logged := j.s.logged[msg]
	if j.s.logged == nil {
		j.s.logged = map[string]bool{}
	}
	j.s.logged[msg] = true
	j.s.mu.Unlock()
	if !logged {
		j.s.o.logWarning(msg)
	}
}
