package rank

import (
	"context"
	"testing"

	"ioswarm/wire"
)

// A node whose mount has only the page cache sends no client-cache
// report, and no phase but a read with this rank's threads in it asks.
func TestClientCacheReportsOnlyReadsOfOtherCaches(t *testing.T) {
	s := &state{setup: wire.Setup{Dir: t.TempDir(), Threads: []int{0}}}
	ctx := context.Background()
	for _, ph := range []wire.Phase{wire.Write, wire.Read, wire.Reread, wire.RandRead} {
		s.clientCacheBefore(ctx, ph)
		if u := s.clientCacheAfter(ctx, ph); u != nil {
			t.Errorf("%s on a page-cache directory: report %+v, want none", ph, u)
		}
	}
	if !s.watchesClientCache(wire.Reread) || s.watchesClientCache(wire.Write) || s.watchesClientCache(wire.MDRead) {
		t.Error("watchesClientCache: want reads of data files only")
	}
	idle := &state{setup: wire.Setup{Dir: t.TempDir()}}
	if idle.watchesClientCache(wire.Read) {
		t.Error("a rank with no threads in the job watches the client cache")
	}
}
