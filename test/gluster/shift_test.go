package gluster

// Read shift and the cache facts, written against their contract before
// they land: until then these tests fail. Run them alone with
// -run TestReadShift.
//
// Contract: with --read-shift 1 (also auto, the default of `run` on two
// or more nodes) each thread of a read phase reads the file written by the
// thread placed one node further along; read phases' thread records give
// written_by_host and written_by_thread; hosts give mem_total,
// mount_point, fs_source, mount_options and fs_block_size; read phases
// give resident_by_host and cache_guard, and a cache warning joins the job's
// warnings when the guard warns.

import (
	"strings"
	"testing"

	"ioswarm/test/cluster"
)

func TestReadShift(t *testing.T) {
	e := newEnv(t, 3, cluster.Options{})
	dir := e.v.Mkdir(t, "")

	t.Run("auto", func(t *testing.T) {
		j := e.mustRun(t, "", dir)
		checkShifted(t, j)
		e.checkHostFacts(t, j)
		checkPhaseFacts(t, j)
	})
	t.Run("1", func(t *testing.T) {
		checkShifted(t, e.mustRun(t, "", dir, "--read-shift", "1"))
	})
	t.Run("0", func(t *testing.T) {
		checkUnshifted(t, e.mustRun(t, "", dir, "--read-shift", "0"))
	})
	// One kernel holds every node's cache and the server's here, so with
	// no drop and no shift the threads read their own files largely from
	// memory: what the residency warning is for. How much stays resident
	// through FUSE varies from run to run; the random read, after the
	// sequential one, has always found it all.
	t.Run("0-no-drop", func(t *testing.T) {
		j := e.mustRun(t, "", dir, "--read-shift", "0", "--drop-caches", "off")
		checkUnshifted(t, j)
		if !hasWarning(j, "cache") {
			t.Errorf("no warning mentions the cache; warnings: %q", j.Warnings)
		}
		cached := 0
		for _, p := range j.readPhases() {
			for _, r := range p.ResidentByHost {
				if r.ResidentFraction == nil || *r.ResidentFraction < 0.5 {
					continue
				}
				cached++
				if !hasWarning(j, p.Name+":", r.Host, "cache") {
					t.Errorf("%s: %.0f%% of %s's pages were resident, but no %s warning names %s and the cache; warnings: %q",
						p.Name, 100**r.ResidentFraction, r.Host, p.Name, r.Host, j.Warnings)
				}
			}
		}
		if cached == 0 {
			t.Errorf("no read phase found half its pages resident on any host with the caches kept")
		}
	})
	e.checkNoJobFiles(t, dir)
}

// writers maps each thread of the write phase to its host.
func writers(t *testing.T, j *job) map[int]string {
	t.Helper()
	hosts := map[int]string{}
	for _, th := range j.phase(t, "write").Threads {
		hosts[th.Thread] = th.Host
	}
	return hosts
}

// checkShifted: every reader reads a file written on another node, by
// the thread the write phase shows there.
func checkShifted(t *testing.T, j *job) {
	t.Helper()
	wrote := writers(t, j)
	for _, p := range j.readPhases() {
		for _, th := range p.Threads {
			if th.WrittenByHost == nil || th.WrittenByThread == nil {
				t.Errorf("%s: thread %d on %s has no written_by_host / written_by_thread", p.Name, th.Thread, th.Host)
				continue
			}
			by, byThread := *th.WrittenByHost, *th.WrittenByThread
			if by == th.Host {
				t.Errorf("%s: thread %d on %s reads a file written on its own host", p.Name, th.Thread, th.Host)
			}
			if wrote[byThread] != by {
				t.Errorf("%s: thread %d on %s: written_by thread %d on %s, but the write phase ran thread %d on %q",
					p.Name, th.Thread, th.Host, byThread, by, byThread, wrote[byThread])
			}
		}
	}
}

// checkUnshifted: every reader reads its own file.
func checkUnshifted(t *testing.T, j *job) {
	t.Helper()
	for _, p := range j.readPhases() {
		for _, th := range p.Threads {
			if th.WrittenByHost == nil || th.WrittenByThread == nil {
				t.Errorf("%s: thread %d on %s has no written_by_host / written_by_thread", p.Name, th.Thread, th.Host)
				continue
			}
			if *th.WrittenByHost != th.Host || *th.WrittenByThread != th.Thread {
				t.Errorf("%s: thread %d on %s reads the file of thread %d on %s with --read-shift 0",
					p.Name, th.Thread, th.Host, *th.WrittenByThread, *th.WrittenByHost)
			}
		}
	}
}

// checkHostFacts: each host describes the mount it ran on.
func (e *env) checkHostFacts(t *testing.T, j *job) {
	t.Helper()
	for _, h := range j.Hosts {
		switch {
		case h.MemTotal == nil || *h.MemTotal <= 0:
			t.Errorf("host %s: mem_total %v, want the node's memory in bytes", h.Host, h.MemTotal)
		case h.MountPoint == nil || *h.MountPoint != e.v.MountPoint:
			t.Errorf("host %s: mount_point %v, want %s", h.Host, deref(h.MountPoint), e.v.MountPoint)
		case h.FSSource == nil || *h.FSSource != e.v.Source:
			t.Errorf("host %s: fs_source %v, want %s", h.Host, deref(h.FSSource), e.v.Source)
		case h.MountOptions == nil || !strings.Contains(*h.MountOptions, "rw"):
			t.Errorf("host %s: mount_options %v, want the mount's options (rw,...)", h.Host, deref(h.MountOptions))
		case h.FSBlockSize == nil || *h.FSBlockSize <= 0:
			t.Errorf("host %s: fs_block_size %v, want the filesystem's block size", h.Host, h.FSBlockSize)
		}
	}
}

// checkPhaseFacts: each read phase gives residency per host and the
// cache guard's verdict.
func checkPhaseFacts(t *testing.T, j *job) {
	t.Helper()
	for _, p := range j.readPhases() {
		if len(p.ResidentByHost) != len(j.Hosts) {
			t.Errorf("%s: resident_by_host has %d entries, want one per host (%d)", p.Name, len(p.ResidentByHost), len(j.Hosts))
		}
		for _, r := range p.ResidentByHost {
			if r.Host == "" || r.ResidentFraction == nil || *r.ResidentFraction < 0 || *r.ResidentFraction > 1 {
				t.Errorf("%s: resident_by_host entry %q %v", p.Name, r.Host, r.ResidentFraction)
			}
		}
		g := p.CacheGuard
		if g == nil || g.Applies == nil || g.Warned == nil || g.ClientCache == nil || g.ServerCache == nil ||
			g.RequiredTotal == nil || g.Total == nil {
			t.Errorf("%s: cache_guard %+v, want applies, warned, client_cache, server_cache, required_total, total", p.Name, g)
			continue
		}
		if *g.Warned && !hasWarning(j, "cache") {
			t.Errorf("%s: the cache guard warned, but no warning mentions the cache: %q", p.Name, j.Warnings)
		}
	}
}

// hasWarning reports whether one of the job's warnings holds every one of
// words (case-insensitively).
func hasWarning(j *job, words ...string) bool {
	for _, w := range j.Warnings {
		if lineWith(strings.ToLower(w), lowered(words)...) != "" {
			return true
		}
	}
	return false
}

func lowered(words []string) []string {
	var low []string
	for _, w := range words {
		low = append(low, strings.ToLower(w))
	}
	return low
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
