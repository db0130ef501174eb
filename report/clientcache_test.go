package report

import (
	"testing"

	"ioswarm/result"
)

func TestClientCachesInTheHeader(t *testing.T) {
	oc := &result.ClientCache{Kind: "ceph-fuse object cacher", Size: 64 << 20, Outside: true, Counters: true}
	hosts := []result.Host{
		{Host: "node1", ClientCache: oc}, {Host: "node2", ClientCache: oc},
		{Host: "node3", CacheBytes: 8 << 30, ClientCache: &result.ClientCache{Kind: "page cache"}},
	}
	want := "ceph-fuse object cacher 64 MiB, outside the page cache on 2 node(s); page cache (memory 8 GiB) on 1 node(s)"
	if got := clientCaches(hosts); got != want {
		t.Errorf("clientCaches =\n%q, want\n%q", got, want)
	}
	if got := clientCaches([]result.Host{{Host: "old"}}); got != "" {
		t.Errorf("a result file without the field gave %q", got)
	}
}
