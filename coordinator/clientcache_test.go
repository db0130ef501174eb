package coordinator

import (
	"strings"
	"testing"

	"ioswarm/clientcache"
	"ioswarm/result"
	"ioswarm/wire"
)

func TestClientCacheWarningNamesTheNode(t *testing.T) {
	oc := clientcache.Info{Kind: clientcache.CephFuse, Size: 64 << 20, Outside: true, Counters: true}
	for _, c := range []struct {
		name       string
		use        wire.ClientCacheUse
		read       int64
		wantFrac   float64
		wantWarned bool
	}{
		{"all from the servers", wire.ClientCacheUse{Cache: oc, Counted: true, FetchedBytes: 32 << 20}, 32 << 20, 0, false},
		{"read-ahead past what was read", wire.ClientCacheUse{Cache: oc, Counted: true, FetchedBytes: 40 << 20, HitBytes: 30 << 20}, 32 << 20, 0, false},
		{"just under the limit", wire.ClientCacheUse{Cache: oc, Counted: true, FetchedBytes: 96 << 20}, 100 << 20, 0.04, false},
		{"a tenth cached", wire.ClientCacheUse{Cache: oc, Counted: true, FetchedBytes: 90 << 20}, 100 << 20, 0.1, true},
		{"all cached", wire.ClientCacheUse{Cache: oc, Counted: true, HitBytes: 1 << 30}, 32 << 20, 1, true},
		{"no counters", wire.ClientCacheUse{Cache: oc, Note: "permission denied"}, 32 << 20, 0, false},
	} {
		h := byHostClientCache("node2", 1, &c.use, c.read)
		if d := h.CachedFraction - c.wantFrac; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: cached fraction %v, want %v", c.name, h.CachedFraction, c.wantFrac)
		}
		if h.Host != "node2" || h.Rank != 1 || h.Kind != string(clientcache.CephFuse) || h.Size != 64<<20 || h.ReadBytes != c.read {
			t.Errorf("%s: entry %+v", c.name, h)
		}
		w := clientCacheWarning("reread", h)
		if (w != "") != c.wantWarned {
			t.Errorf("%s: warning %q, want warned=%v", c.name, w, c.wantWarned)
		}
		if w != "" && (!strings.HasPrefix(w, "reread: ") || !strings.Contains(w, "node2") || !strings.Contains(w, "object cacher")) {
			t.Errorf("%s: warning %q names not the phase, node and cache", c.name, w)
		}
	}
}

func TestColdWithoutCountersOnlyForAFirstRotatedRead(t *testing.T) {
	read := result.Phase{Name: "read"}
	for _, c := range []struct {
		name    string
		direct  bool
		shift   int
		filesOf string
		done    []result.Phase
		want    bool
	}{
		{"first rotated read", false, 1, "", []result.Phase{{Name: "write"}}, true},
		{"own files", false, 0, "", []result.Phase{{Name: "write"}}, false},
		{"after a read", false, 1, "", []result.Phase{{Name: "write"}, read}, false},
		{"kept files", false, 1, "abc", nil, false},
		{"O_DIRECT", true, 0, "abc", []result.Phase{read}, true},
	} {
		j := &job{shift: c.shift, filesOf: c.filesOf, res: &result.Job{Phases: c.done}}
		j.o.Direct = c.direct
		if got := j.coldWithoutCounters(); got != c.want {
			t.Errorf("%s: coldWithoutCounters = %v, want %v", c.name, got, c.want)
		}
	}
}
