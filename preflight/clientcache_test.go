package preflight

import (
	"strings"
	"testing"

	"ioswarm/clientcache"
	"ioswarm/nodefacts"
)

func TestTableShowsEachNodesClientCache(t *testing.T) {
	node := func(host string, cache clientcache.Info) Result {
		return Result{Host: host, OK: true, Report: &Report{FSType: "fuse.ceph-fuse",
			Facts: &nodefacts.Facts{MemTotal: 8 << 30, CacheBytes: 8 << 30, ClientCache: cache}}}
	}
	oc := clientcache.Info{Kind: clientcache.CephFuse, Size: 64 << 20, Outside: true, Counters: true}
	hidden := clientcache.Info{Kind: clientcache.CephFuse, Outside: true, Note: "its ceph-fuse belongs to another user"}
	results := []Result{node("n1", oc), node("n2", oc), node("n3", hidden),
		node("n4", clientcache.Info{Kind: clientcache.PageCache}), node("n5", clientcache.Info{})}
	var b strings.Builder
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"client cache: ceph-fuse object cacher 64 MiB, outside the page cache on 2 node(s)\n",
		"client cache: ceph-fuse object cacher (size unknown), outside the page cache, counters unreadable (its ceph-fuse belongs to another user) on 1 node(s)\n",
		"client cache: page cache (memory 8 GiB) on 1 node(s)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "client cache:"); n != 3 {
		t.Errorf("%d client cache lines, want 3 (a node that said nothing of its cache has none):\n%s", n, out)
	}
}
