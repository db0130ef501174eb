package report

import (
	"fmt"
	"strings"

	"ioswarm/clientcache"
	"ioswarm/result"
)

// clientCacheInfo is a host's client cache as nodefacts counts it.
func clientCacheInfo(c *result.ClientCache) clientcache.Info {
	if c == nil {
		return clientcache.Info{}
	}
	return clientcache.Info{Kind: clientcache.Kind(c.Kind), Size: c.Size, Outside: c.Outside}
}

// clientCaches lists the nodes' client caches for the run header, alike
// ones once with their number of nodes; "" for result files that predate
// the field.
func clientCaches(hosts []result.Host) string {
	var order []string
	count := map[string]int{}
	for _, h := range hosts {
		if h.ClientCache == nil {
			continue
		}
		i := clientCacheInfo(h.ClientCache)
		i.Counters = h.ClientCache.Counters
		d := Clean(i.Describe(h.CacheBytes))
		if count[d] == 0 {
			order = append(order, d)
		}
		count[d]++
	}
	out := make([]string, len(order))
	for i, d := range order {
		out[i] = fmt.Sprintf("%s on %d node(s)", d, count[d])
	}
	return strings.Join(out, "; ")
}
