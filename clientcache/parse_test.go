package clientcache

import (
	"context"
	"errors"
	"testing"

	"ioswarm/mounts"
)

func TestGPFSPagepool(t *testing.T) {
	out := "=== mmdiag: config ===\n  maxMBpS 2048\n! pagepool 34359738368\n  pagepoolMaxPhysMemPct 75\n"
	if got := gpfsPagepool(out); got != 32<<30 {
		t.Errorf("pagepool %d, want 32 GiB", got)
	}
	if got := gpfsPagepool("pagepool 4G\n"); got != 4<<30 {
		t.Errorf("pagepool 4G gave %d", got)
	}
	if got := gpfsPagepool("maxMBpS 2048\n"); got != 0 {
		t.Errorf("no pagepool gave %d", got)
	}
}

func TestLustreParsers(t *testing.T) {
	if got := lustreMaxCached("users: 2\nmax_cached_mb: 15942\nused_mb: 3\n"); got != 15942 {
		t.Errorf("max_cached_mb %d, want 15942", got)
	}
	if got := lustreMaxCached("users: 5\nmax_cached_mb: 4096\nused_mb: 12\nunused_mb: 4084\nreclaim_count: 0\n"); got != 4096 {
		t.Errorf("newer lctl: %d", got)
	}
	if got := lustreMaxCached("4096\n8192\n"); got != 8192 {
		t.Errorf("max_cached_mb of two clients %d, want the larger", got)
	}
	stats := "snapshot_time 1.0 secs.nsecs\nhits 100 samples [pages]\nmisses 25 samples [pages]\nreadpage not consecutive 2 samples [pages]\n"
	if got := lustreReadAhead(stats, 4096); got != (Counters{HitBytes: 100 * 4096, MissBytes: 25 * 4096, FetchedBytes: 25 * 4096}) {
		t.Errorf("read_ahead_stats gave %+v", got)
	}
}

func TestProbeLustreAndGPFSThroughTools(t *testing.T) {
	tools := map[string]string{
		"mmdiag --config":                            "! pagepool 1G",
		"lctl get_param -n llite.*.max_cached_mb":    "max_cached_mb: 512",
		"lctl get_param -n llite.*.read_ahead_stats": "hits 8 samples [pages]\nmisses 2 samples [pages]",
	}
	e := env{tool: func(_ context.Context, name string, args ...string) (string, error) {
		key := name
		for _, a := range args {
			key += " " + a
		}
		if out, ok := tools[key]; ok {
			return out, nil
		}
		return "", errors.New("not installed")
	}}
	g := probeWith(context.Background(), e, mounts.Mount{Type: "gpfs"}).Info()
	if g != (Info{Kind: GPFS, Size: 1 << 30, Outside: true}) {
		t.Errorf("gpfs: %+v", g)
	}
	l := probeWith(context.Background(), e, mounts.Mount{Type: "lustre"})
	if l.Info() != (Info{Kind: Lustre, Size: 512 << 20, Counters: true}) {
		t.Errorf("lustre: %+v", l.Info())
	}
	if n, err := l.Read(context.Background()); err != nil || n.MissBytes == 0 || n.HitBytes != 4*n.MissBytes {
		t.Errorf("lustre counters %+v, %v", n, err)
	}
}
