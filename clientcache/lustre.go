package clientcache

import (
	"context"
	"os"
	"strconv"
	"strings"

	"ioswarm/mounts"
)

// probeLustre reads the client's page-cache limit (llite.*.max_cached_mb)
// and counts, from llite.*.read_ahead_stats, the pages reads found cached
// ("hits") and those fetched ("misses"). With several Lustre mounts on the
// node the figures cover all of them: lctl names instances, not mount
// points. Untested: written from Lustre's documentation, without Lustre.
func probeLustre(ctx context.Context, e env, _ mounts.Mount) *Cache {
	c := &Cache{}
	out, err := e.tool(ctx, "lctl", "get_param", "-n", "llite.*.max_cached_mb")
	if err != nil {
		c.info.Note = "lctl get_param llite.*.max_cached_mb: " + err.Error()
		return c
	}
	c.info.Size = lustreMaxCached(out) << 20
	read := func(ctx context.Context) (Counters, error) {
		out, err := e.tool(ctx, "lctl", "get_param", "-n", "llite.*.read_ahead_stats")
		if err != nil {
			return Counters{}, err
		}
		return lustreReadAhead(out, int64(os.Getpagesize())), nil
	}
	if _, err := read(ctx); err != nil {
		c.info.Note = "lctl get_param llite.*.read_ahead_stats: " + err.Error()
		return c
	}
	c.read = read
	return c
}

// lustreMaxCached reads max_cached_mb: a bare number (older clients) or a
// "max_cached_mb: N" line (newer), one per client; the largest counts.
func lustreMaxCached(out string) int64 {
	var best int64
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "max_cached_mb:"); ok {
			line = strings.TrimSpace(v)
		}
		if n, err := strconv.ParseInt(line, 10, 64); err == nil && n > best {
			best = n
		}
	}
	return best
}

// lustreReadAhead sums the "hits N samples [pages]" and "misses N samples
// [pages]" lines of read_ahead_stats, in bytes.
func lustreReadAhead(out string, page int64) Counters {
	var c Counters
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "hits":
			c.HitBytes += n * page
		case "misses":
			c.MissBytes += n * page
			c.FetchedBytes += n * page
		}
	}
	return c
}
