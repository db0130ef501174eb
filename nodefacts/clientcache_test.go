package nodefacts

import (
	"testing"

	"ioswarm/clientcache"
)

func TestClientCacheCountsCachesOutsideThePageCache(t *testing.T) {
	oc := func(size int64) clientcache.Info {
		return clientcache.Info{Kind: clientcache.CephFuse, Size: size, Outside: true}
	}
	for _, c := range []struct {
		name  string
		facts []Facts
		want  int64
	}{
		// Four ceph-fuse clients on one kernel whose memory is unknown:
		// each object cacher counts.
		{"memory unknown", []Facts{{BootID: "a", ClientCache: oc(64)}, {BootID: "a", ClientCache: oc(64)},
			{BootID: "a", ClientCache: oc(64)}, {BootID: "a", ClientCache: oc(64)}}, 256},
		// The object cachers live in that kernel's memory: it bounds them.
		{"inside memory", []Facts{{BootID: "a", CacheBytes: 1000, ClientCache: oc(64)},
			{BootID: "a", CacheBytes: 1000, ClientCache: oc(64)}}, 1000},
		// A page cache held below the caches outside it.
		{"page cache held low", []Facts{{BootID: "a", CacheBytes: 100, ClientCache: oc(300)},
			{BootID: "b", CacheBytes: 100}}, 400},
		// A size not marked outside (Lustre's limit) is the page cache's.
		{"lustre", []Facts{{CacheBytes: 100, ClientCache: clientcache.Info{Kind: clientcache.Lustre, Size: 100}}}, 100},
		{"no boot id", []Facts{{ClientCache: oc(64)}, {CacheBytes: 10}}, 74},
	} {
		if got, _ := ClientCache(c.facts); got != c.want {
			t.Errorf("%s: ClientCache = %d, want %d", c.name, got, c.want)
		}
	}
}
