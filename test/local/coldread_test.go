package local

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/result"
	"ioswarm/wire"
)

// On one machine (two ranks, one node, one kernel) every further read of
// the same files is a read of bytes the node touched: with the page cache
// kept, the read, the reread and every iteration's read are maybe-cache,
// each with its reason and a warning, and the table's "!" legend names
// the cache. The write gets no verdict.
func TestRereadAndIterationsOnOneNodeAreMaybeCache(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "warm.json")
	stdout, stderr, code := run(t, "run", "--dir", dir, "--local-ranks", "2", "--threads", "4", "--total", "16MiB",
		"--block", "1MiB", "--phases", "write,read,reread", "--iterations", "2", "--drop-caches", "off", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	job := loadResult(t, out)
	reads := 0
	for _, p := range job.Phases {
		if p.Name == "write" {
			if p.CacheVerdict != "" || len(p.CacheVerdicts) != 0 {
				t.Errorf("write %d: a cache verdict %q", p.Iteration, p.CacheVerdict)
			}
			continue
		}
		reads++
		if p.CacheVerdict != result.VerdictMaybeCache || len(p.CacheVerdicts) != 1 || p.CacheReason == "" {
			t.Errorf("%s %d: verdict %q (%q) on %d node(s), want maybe-cache on 1", p.Name, p.Iteration, p.CacheVerdict, p.CacheReason, len(p.CacheVerdicts))
			continue
		}
		if v := p.CacheVerdicts[0]; v.Reason != "no-drop" && v.Reason != "resident" {
			t.Errorf("%s %d: reason %s (%s), want no-drop or resident", p.Name, p.Iteration, v.Reason, v.Detail)
		}
		if p.CacheGuard == nil || !p.CacheGuard.Warned {
			t.Errorf("%s %d: maybe-cache under the sizing rule, yet the guard %+v did not warn", p.Name, p.Iteration, p.CacheGuard)
		}
		if !strings.Contains(strings.Join(job.Warnings, "\n"), p.Name+": cache verdict maybe-cache") {
			t.Errorf("%s %d: no verdict warning in %q", p.Name, p.Iteration, job.Warnings)
		}
		if !strings.Contains(stdout, "  "+p.Name+" "+itoa(p.Iteration)+": may be a cache figure") {
			t.Errorf("%s %d: the ! legend does not name the cache:\n%s", p.Name, p.Iteration, stdout)
		}
	}
	if reads != 4 {
		t.Errorf("%d read phases, want 4", reads)
	}
}

// With the page cache dropped (root, on a filesystem caching only there)
// the same reread is storage and says why; without the right to drop it
// is maybe-cache.
func TestRereadAfterDropCaches(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "dropped.json")
	_, stderr, code := run(t, "run", "--dir", dir, "--local-ranks", "2", "--threads", "2", "--total", "8MiB",
		"--block", "1MiB", "--phases", "write,read,reread", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	job := loadResult(t, out)
	fs := job.Hosts[0].FSType
	pageOnly := map[string]bool{"ext4": true, "xfs": true, "btrfs": true, "tmpfs": true}[fs]
	for _, p := range job.Phases {
		if p.Name == "write" {
			continue
		}
		want, reason := result.VerdictMaybeCache, ""
		if p.CacheDrop == "drop_caches" && pageOnly {
			want, reason = result.VerdictStorage, "drop-caches"
		}
		if p.CacheVerdict != want || (reason != "" && p.CacheVerdicts[0].Reason != reason) {
			t.Errorf("%s on %s, drop %s: verdict %q %+v, want %s %s", p.Name, fs, p.CacheDrop, p.CacheVerdict, p.CacheVerdicts, want, reason)
		}
	}
}

// A kept job's files read twice by --reuse jobs: the manifest records
// who wrote each file and who read it (here the one node), and the second
// reuse, with the page cache kept, is maybe-cache.
func TestReuseTwiceIsMaybeCache(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--dir", dir, "--threads", "2", "--local-ranks", "2", "--total", "8MiB", "--block", "1MiB"}
	first := filepath.Join(t.TempDir(), "write.json")
	if _, stderr, code := run(t, append([]string{"run", "--phases", "write", "--keep", "--output", first}, common...)...); code != 0 {
		t.Fatalf("kept write: exit %d\n%s", code, stderr)
	}
	kept := loadResult(t, first)
	manifestPath := filepath.Join(dir, "ioswarm-"+kept.JobID, wire.ManifestName)
	keptAt := modTime(t, manifestPath)
	for k := 1; k <= 2; k++ {
		out := filepath.Join(t.TempDir(), "reuse.json")
		_, stderr, code := run(t, append([]string{"run", "--phases", "read", "--keep", "--reuse", kept.JobID,
			"--drop-caches", "off", "--output", out}, common...)...)
		if code != 0 {
			t.Fatalf("reuse %d: exit %d\n%s", k, code, stderr)
		}
		job := loadResult(t, out)
		if len(job.Phases) != 1 || job.Phases[0].CacheVerdict != result.VerdictMaybeCache {
			t.Errorf("reuse %d: phases %d, verdict %+v", k, len(job.Phases), job.Phases)
		}
		var m wire.Manifest
		data, err := os.ReadFile(manifestPath)
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(m.WrittenBy) != 2 || len(m.ReadBy) != 2 || m.WrittenBy[0] != job.Hosts[0].Host {
			t.Errorf("reuse %d: manifest written_by %v read_by %v", k, m.WrittenBy, m.ReadBy)
		}
		if at := modTime(t, manifestPath); !at.Equal(keptAt) {
			t.Errorf("reuse %d: the manifest's time moved from %v to %v: --reuse latest would take it for a newer job", k, keptAt, at)
		}
	}
	os.RemoveAll(filepath.Dir(manifestPath))
}

func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime()
}
