package coordinator

import (
	"strings"
	"testing"

	"ioswarm/launcher"
	"ioswarm/result"
)

// The verdict rules: storage only where O_DIRECT, untouched bytes, the
// sizing rule, or a page cache that is the only client cache and was
// dropped, or shown empty of the job's pages after fadvise, shows it;
// everything else is maybe-cache with the reason.
func TestNodeVerdictRules(t *testing.T) {
	small := readCase{clientCache: 24 * gib, total: gib, rotating: true}
	cases := []struct {
		name    string
		c       readCase
		n       nodeRead
		verdict string
		reason  string
	}{
		{"untouched, no drop", small, nodeRead{fsType: "ext4", drop: "none"}, result.VerdictStorage, reasonUntouched},
		{"untouched on ceph-fuse", small, nodeRead{fsType: "fuse.ceph-fuse", drop: "drop_caches"}, result.VerdictStorage, reasonUntouched},
		{"reread on the writer, ext4 dropped", small, nodeRead{fsType: "ext4", drop: "drop_caches", touched: true}, result.VerdictStorage, reasonDropCaches},
		{"reread on the writer, glusterfs dropped", small, nodeRead{fsType: "fuse.glusterfs", drop: "drop_caches", touched: true}, result.VerdictStorage, reasonDropCaches},
		{"reread on the writer, lustre dropped", small, nodeRead{fsType: "lustre", drop: "drop_caches", touched: true}, result.VerdictStorage, reasonDropCaches},
		{"ceph-fuse dropped, touched", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "fuse.ceph-fuse", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"gpfs dropped, touched", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "gpfs", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"beegfs dropped, touched", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "beegfs", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"wekafs dropped, touched", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "wekafs", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"other fuse dropped, touched", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "fuse.sshfs", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"nfs with fsc dropped, touched", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "nfs4", options: "rw,fsc,vers=4.2", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"ext4 fadvise, touched, nothing measured", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "ext4", drop: "fadvise", touched: true}, result.VerdictMaybeCache, reasonNoDrop},
		{"ext4 fadvise, touched, none resident", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "ext4", drop: "fadvise", touched: true, residentPages: 2048}, result.VerdictStorage, reasonFadvise},
		{"lustre fadvise, touched, 1% resident", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "lustre", drop: "fadvise", touched: true, resident: 0.01, residentPages: 2048}, result.VerdictStorage, reasonFadvise},
		{"ext4 fadvise, pages stayed", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "ext4", drop: "fadvise", touched: true, resident: 0.6, residentPages: 2048}, result.VerdictMaybeCache, reasonResident},
		{"glusterfs fadvise, none resident", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "fuse.glusterfs", drop: "fadvise", touched: true, residentPages: 2048}, result.VerdictMaybeCache, reasonNoDrop},
		{"gpfs fadvise, none resident", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "gpfs", drop: "fadvise", touched: true, residentPages: 2048}, result.VerdictMaybeCache, reasonClientCache},
		{"nfs with fsc fadvise, none resident", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "nfs4", options: "rw,fsc", drop: "fadvise", touched: true, residentPages: 2048}, result.VerdictMaybeCache, reasonClientCache},
		{"ext4 no drop, none resident", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "ext4", drop: "none", touched: true, residentPages: 2048}, result.VerdictMaybeCache, reasonNoDrop},
		{"rotation ran out", small, nodeRead{fsType: "fuse.ceph-fuse", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"rotation ran out, exhausted", readCase{clientCache: 24 * gib, total: gib, rotating: true, exhausted: true}, nodeRead{fsType: "fuse.ceph-fuse", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonNoUntouched},
		{"exhausted but page cache dropped", readCase{clientCache: 24 * gib, total: gib, rotating: true, exhausted: true}, nodeRead{fsType: "xfs", drop: "drop_caches", touched: true}, result.VerdictStorage, reasonDropCaches},
		{"node-local dir", readCase{clientCache: 24 * gib, total: gib, nodeLocal: true}, nodeRead{fsType: "fuse.ceph-fuse", drop: "fadvise", touched: true}, result.VerdictMaybeCache, reasonNodeLocal},
		{"direct, touched, ceph-fuse", readCase{direct: true, clientCache: 24 * gib, total: gib}, nodeRead{fsType: "fuse.ceph-fuse", drop: "direct", touched: true}, result.VerdictStorage, reasonDirect},
		{"sizing holds, touched", readCase{clientCache: 24 * gib, total: 48 * gib}, nodeRead{fsType: "gpfs", drop: "none", touched: true}, result.VerdictStorage, reasonSizing},
		{"sizing unknown caches", readCase{clientCache: 0, total: 48 * gib}, nodeRead{fsType: "gpfs", drop: "none", touched: true}, result.VerdictMaybeCache, reasonClientCache},
		{"server cache holds it", readCase{direct: true, clientCache: 24 * gib, serverCache: 8 * gib, total: gib}, nodeRead{fsType: "ext4", drop: "direct"}, result.VerdictMaybeCache, reasonServerCache},
		{"resident pages", small, nodeRead{fsType: "ext4", drop: "none", resident: 0.5}, result.VerdictMaybeCache, reasonResident},
		{"kept job's readers unknown", small, nodeRead{fsType: "fuse.ceph-fuse", drop: "drop_caches", readersUnknown: true}, result.VerdictMaybeCache, reasonReaders},
		{"readers unknown, page cache dropped", small, nodeRead{fsType: "ext4", drop: "drop_caches", readersUnknown: true}, result.VerdictStorage, reasonDropCaches},
		{"same kernel touched, no drop", small, nodeRead{fsType: "ext4", drop: "fadvise", kernelTouched: true}, result.VerdictMaybeCache, reasonSharedKern},
		{"same kernel touched, dropped", small, nodeRead{fsType: "fuse.ceph-fuse", drop: "drop_caches", kernelTouched: true}, result.VerdictStorage, reasonUntouched},
		{"unknown filesystem", readCase{clientCache: 24 * gib, total: gib}, nodeRead{fsType: "", drop: "drop_caches", touched: true}, result.VerdictMaybeCache, reasonClientCache},
	}
	for _, c := range cases {
		c.n.host = "node1"
		v := nodeVerdict(c.c, c.n)
		if c.n.drop == "fadvise" && c.n.fsType == "fuse.glusterfs" && !strings.Contains(v.Detail, "FUSE daemon") {
			t.Errorf("%s: detail %q does not say what fadvise leaves", c.name, v.Detail)
		}
		if v.Verdict != c.verdict || v.Reason != c.reason || v.Detail == "" || v.Host != "node1" {
			t.Errorf("%s: %+v, want %s (%s) with a detail", c.name, v, c.verdict, c.reason)
		}
	}
}

// The phase's verdict is storage only when every node's is; its reason
// names the first node that is not. The guard counts the clients' caches
// unless every node is cold by itself.
func TestPhaseVerdictAndGuardAgree(t *testing.T) {
	storage := result.NodeVerdict{Host: "a", Verdict: result.VerdictStorage, Reason: reasonUntouched}
	sized := result.NodeVerdict{Host: "c", Verdict: result.VerdictStorage, Reason: reasonSizing}
	maybe := result.NodeVerdict{Host: "b", Verdict: result.VerdictMaybeCache, Reason: reasonClientCache, Detail: "ceph-fuse caches"}
	v, why := phaseVerdict([]result.NodeVerdict{storage, maybe})
	if v != result.VerdictMaybeCache || !strings.Contains(why, "1 of 2") || !strings.Contains(why, "b: ceph-fuse caches") {
		t.Errorf("one warm node: %s, %q", v, why)
	}
	if v, why := phaseVerdict([]result.NodeVerdict{storage, storage}); v != result.VerdictStorage || !strings.Contains(why, reasonUntouched) {
		t.Errorf("all cold: %s, %q", v, why)
	}
	evicted := result.NodeVerdict{Host: "d", Verdict: result.VerdictStorage, Reason: reasonFadvise}
	if !coldEverywhere([]result.NodeVerdict{storage}) || coldEverywhere([]result.NodeVerdict{storage, maybe}) ||
		coldEverywhere([]result.NodeVerdict{sized}) || coldEverywhere(nil) || !coldEverywhere([]result.NodeVerdict{storage, evicted}) {
		t.Error("coldEverywhere: only direct, untouched, drop-caches and fadvise on every node are cold")
	}
	if g := cacheGuard(coldEverywhere([]result.NodeVerdict{storage, maybe}), 24*gib, 0, gib); !g.Warned {
		t.Errorf("a maybe-cache node under the sizing rule: guard %+v not warned", *g)
	}
}

// A cache measured during the phase turns a storage node maybe-cache,
// and the phase, its guard and its warnings with it.
func TestDemoteVerdict(t *testing.T) {
	var log strings.Builder
	j := jobOn("node1", "node2")
	j.s.o.Log = launcher.NewLineWriter(&log)
	j.res = &result.Job{}
	j.clientCache, j.o.Total = 24*gib, gib
	p := &result.Phase{Name: "read", CacheVerdicts: []result.NodeVerdict{
		{Host: "node1", Verdict: result.VerdictStorage, Reason: reasonUntouched},
		{Host: "node2", Verdict: result.VerdictStorage, Reason: reasonUntouched}}}
	p.CacheVerdict, p.CacheReason = phaseVerdict(p.CacheVerdicts)
	p.CacheGuard = cacheGuard(coldEverywhere(p.CacheVerdicts), j.clientCache, 0, j.o.Total)
	if p.CacheGuard.Warned || p.CacheVerdict != result.VerdictStorage {
		t.Fatalf("before: %+v %s", *p.CacheGuard, p.CacheVerdict)
	}
	if j.demoteVerdict(p, "node9", reasonClientCache, "x") {
		t.Error("a host without a verdict was demoted")
	}
	if !j.demoteVerdict(p, "node2", reasonClientCache, "12% of its read bytes came from the ceph-fuse object cacher") {
		t.Fatal("node2 not demoted")
	}
	if p.CacheVerdict != result.VerdictMaybeCache || !p.CacheGuard.Warned || len(p.Warnings) != 1 ||
		len(j.res.Warnings) != 1 || !strings.Contains(p.CacheReason, "node2: 12%") {
		t.Errorf("after: verdict %s (%s), guard %+v, warnings %q / %q", p.CacheVerdict, p.CacheReason, *p.CacheGuard, p.Warnings, j.res.Warnings)
	}
}
