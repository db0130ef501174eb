package cluster

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/loadslack"
)

// A node with 40 ms added each way answers a round trip from the head
// about 80 ms later, other nodes do not, the delay goes with Delay(node, 0),
// and down stops a delay that is still on.
func TestClusterDelay(t *testing.T) {
	c := Start(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const oneWay = 40 * time.Millisecond
	before := roundTrip(ctx, t, c, "node2")
	if err := c.Delay("node2", oneWay); err != nil {
		t.Fatal(err)
	}
	slow, other := roundTrip(ctx, t, c, "node2"), roundTrip(ctx, t, c, "node1")
	t.Logf("round trip to node2: %v, with %v each way %v; node1 meanwhile %v", before, oneWay, slow, other)
	// What matters is that both directions are held (one alone would
	// add only 40 ms) and nothing is held for long. Both held, no round
	// trip can be shorter than 80 ms, whatever the load; an undelayed one
	// is under 20 ms on an idle machine, more by what load adds now, but
	// always under what a delayed one takes at least.
	if slow < 2*oneWay-2*time.Millisecond || slow >= time.Second {
		t.Errorf("round trip to node2 went from %v to %v with %v each way; want about 80 ms more", before, slow, oneWay)
	}
	fast := min(loadslack.Bound(20*time.Millisecond), 2*oneWay-5*time.Millisecond)
	if other >= fast {
		t.Errorf("round trip to node1 is %v while only node2 is delayed; want under %v", other, fast)
	}
	if err := c.Delay("node2", 0); err != nil {
		t.Fatal(err)
	}
	if rtt := roundTrip(ctx, t, c, "node2"); rtt >= fast {
		t.Errorf("round trip to node2 is %v after the delay was removed; want under %v", rtt, fast)
	}
	if r := nfdelayRecords(t, c); len(r) != 0 {
		t.Errorf("pid records %v after the delay was removed; want no nfdelay", r)
	}

	if err := c.Delay("node2", oneWay); err != nil {
		t.Fatal(err)
	}
	recs := nfdelayRecords(t, c)
	if len(recs) != 1 || !recs[0].alive() {
		t.Fatalf("nfdelay pid records %v with node2 delayed; want one running process", recs)
	}
	checkTeardown(t, c) // checks that every recorded process is gone
	if recs[0].alive() {
		t.Errorf("nfdelay (PID %d) still runs after down", recs[0].pid)
	}
}

// roundTrip times TCP connects from the head to node's sshd and returns
// the best of five. A connect takes one round trip (SYN out, SYN-ACK
// back); the best of several leaves out a busy machine's scheduling noise.
func roundTrip(ctx context.Context, t *testing.T, c *Cluster, node string) time.Duration {
	t.Helper()
	i := slices.Index(c.Nodes, node)
	if i < 0 {
		t.Fatalf("no node %s", node)
	}
	// EPOCHREALTIME has six decimals, so without its dot it counts
	// microseconds; bash reads it without forking.
	const script = `best=
for i in 1 2 3 4 5; do
	s=${EPOCHREALTIME/./}
	exec 3<>"/dev/tcp/$1/22" || exit 1
	e=${EPOCHREALTIME/./}
	exec 3>&-
	if [[ -z $best ]] || ((e - s < best)); then best=$((e - s)); fi
done
echo "$best"`
	out, err := c.Head(ctx, "bash", "-c", script, "rtt", c.IPs[i]).CombinedOutput()
	if err != nil {
		t.Fatalf("timing connects to %s (%s): %v: %s", node, c.IPs[i], err, out)
	}
	us, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("timing connects to %s: printed %q", node, out)
	}
	return time.Duration(us) * time.Microsecond
}

// nfdelayRecords returns the pid records of nfdelay processes.
func nfdelayRecords(t *testing.T, c *Cluster) []record {
	t.Helper()
	recs, err := c.records()
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for _, r := range recs {
		if strings.HasSuffix(r.label, " nfdelay") {
			out = append(out, r)
		}
	}
	return out
}
