package slurmrun

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ioswarm/internal/loadslack"
	"ioswarm/preflight"
)

// `ioswarm hosts` inside an allocation checks each allocated node through
// srun and compares clocks over many round trips through one step per
// node. The bound on the offset is then half the best round trip through
// Slurm's I/O forwarding (well under a millisecond here), where timing a
// whole step launch bounded it only to tens of milliseconds.
func TestHostsPreflightUnderSrun(t *testing.T) {
	e := newEnv(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir, data := sharedDir(t, e, "hosts-")
	out := filepath.Join(dir, "hosts.json")
	e.salloc(ctx, t, dir, "-N2", "sh", "-c", e.shared+" hosts --dir "+data+" --format json >"+out)
	var results []preflight.Result
	if err := json.Unmarshal([]byte(readFile(t, out)), &results); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	var hosts []string
	for _, r := range results {
		hosts = append(hosts, r.Host)
		if !r.OK || r.Report == nil || !r.Report.Writable {
			t.Errorf("%s: not ready: %+v", r.Host, r)
		}
		// The nodes share this machine's clocks: the true offset is 0.
		c := r.Clock
		// 5 ms idle; a loaded machine answers the probes later.
		bound := loadslack.Bound(5 * time.Millisecond)
		if c == nil || c.ErrorNS <= 0 || c.ErrorNS > int64(bound) {
			t.Errorf("%s: clock comparison %+v; want an error bound in (0, %v]", r.Host, c, bound)
			continue
		}
		if d := max(c.MonoNS, -c.MonoNS); d > c.ErrorNS+int64(time.Millisecond) {
			t.Errorf("%s: monotonic offset %d ns outside its bound %d ns (+1 ms)", r.Host, c.MonoNS, c.ErrorNS)
		}
		t.Logf("%s: offset %d ns ± %d ns", r.Host, c.MonoNS, c.ErrorNS)
	}
	if !slices.Equal(hosts, []string{"node1", "node2"}) {
		t.Errorf("checked %q, want node1 and node2", hosts)
	}
	if left := e.copiesOnNodes(t, e.c.Nodes...); len(left) != 0 {
		t.Errorf("sbcast copies left: %q", left)
	}
	e.waitNoLeftovers(t, 5*time.Second)
}
