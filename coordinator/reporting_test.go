package coordinator

import (
	"strings"
	"testing"

	"ioswarm/launcher"
	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
)

func TestReportingWarningNamesEachReportingHostOnce(t *testing.T) {
	reports, plain := nodefacts.Facts{FreePageReporting: true}, nodefacts.Facts{}
	// Two ranks on node1 (as an IOzone threadlist puts them), one on
	// node2, and node4 reporting but running no thread of this job.
	j := jobOn("node1", "node1", "node2", "node3", "node4")
	j.threads[4] = nil
	facts := []nodefacts.Facts{reports, reports, reports, plain, reports}
	w := j.reportingWarning(facts)
	if !strings.HasPrefix(w, "hosts node1, node2: ") || !strings.Contains(w, "free page reporting") {
		t.Errorf("warning %q, want it to name node1 and node2 once each and say why", w)
	}
	if strings.Contains(w, "node3") || strings.Contains(w, "node4") {
		t.Errorf("warning %q names a node that does not report or runs nothing", w)
	}

	if w := jobOn("node1").reportingWarning([]nodefacts.Facts{reports}); !strings.HasPrefix(w, "host node1: ") {
		t.Errorf("one node: %q", w)
	}
	if w := jobOn("node1", "node2").reportingWarning([]nodefacts.Facts{plain, plain}); w != "" {
		t.Errorf("no node reports, yet %q", w)
	}
	direct := jobOn("node1")
	direct.o.Direct = true
	if w := direct.reportingWarning([]nodefacts.Facts{reports}); w != "" {
		t.Errorf("--direct bypasses the page cache, yet %q", w)
	}
	md := jobOn("node1")
	md.o.Phases = []settings.Phase{settings.MDCreate, settings.MDStat}
	if w := md.reportingWarning([]nodefacts.Facts{reports}); w != "" {
		t.Errorf("metadata only, yet %q", w)
	}
}

// Every job of a session records a warning about its nodes; only the
// first logs it.
func TestWarnOncePerSessionLogsOnceAndRecordsInEveryJob(t *testing.T) {
	var log strings.Builder
	first := jobOn("node1")
	first.s.o.Log = launcher.NewLineWriter(&log)
	first.res = &result.Job{}
	second := &job{s: first.s, res: &result.Job{}}
	for _, j := range []*job{first, second} {
		j.warnOncePerSession("host node1: a fact of the node")
	}
	second.warnOncePerSession("host node2: another fact")
	if n := strings.Count(log.String(), "a fact of the node"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "warning: host node2: another fact") {
		t.Errorf("another warning was not logged:\n%s", log.String())
	}
	if len(first.res.Warnings) != 1 || len(second.res.Warnings) != 2 || second.res.Warnings[0] != "host node1: a fact of the node" {
		t.Errorf("warnings recorded: first %q, second %q", first.res.Warnings, second.res.Warnings)
	}
}
