package clientcache

import (
	"context"
	"strconv"
	"strings"

	"ioswarm/mounts"
)

// probeGPFS reads the pagepool this node's GPFS daemon runs with from
// `mmdiag --config` (lines "pagepool 34359738368", a changed setting
// marked "! pagepool …"). mmpmon's fs_io_s counts bytes read, not where
// they came from, so GPFS shows no hit/miss counters here.
// Untested: written from GPFS's documentation, without a GPFS system.
func probeGPFS(ctx context.Context, e env, _ mounts.Mount) *Cache {
	c := &Cache{}
	out, err := e.tool(ctx, "mmdiag", "--config")
	if err != nil {
		c.info.Note = "mmdiag --config: " + err.Error()
		return c
	}
	if c.info.Size = gpfsPagepool(out); c.info.Size == 0 {
		c.info.Note = "mmdiag --config names no pagepool"
	}
	return c
}

// gpfsPagepool finds the pagepool in mmdiag --config's output: bytes, or
// a number with a K, M, G or T suffix.
func gpfsPagepool(out string) int64 {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "!"))
		if len(f) >= 2 && f[0] == "pagepool" {
			return binarySize(f[1])
		}
	}
	return 0
}

func binarySize(s string) int64 {
	shift := 0
	if s != "" {
		if i := strings.IndexByte("KMGT", s[len(s)-1]&^0x20); i >= 0 {
			shift = 10 * (i + 1)
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n << shift
}
