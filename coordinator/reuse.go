package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"ioswarm/barrier"
	"ioswarm/rank"
)

// ReuseLatest asks for the newest kept job under --dir.
const ReuseLatest = "latest"

// readOnlyPhases are the phases a job may run on another job's files:
// reused files are never written.
var readOnlyPhases = []string{"read", "reread", "randread"}

// validateReuse checks --reuse: a job id, a job directory
// (<dir>/ioswarm-<id>, which also sets --dir) or "latest", and phases
// that only read.
func (o *Workload) validateReuse() error {
	if o.Reuse == "" {
		return nil
	}
	if strings.Contains(o.Reuse, "/") {
		base := filepath.Base(filepath.Clean(o.Reuse))
		id, ok := strings.CutPrefix(base, "ioswarm-")
		if !ok || rank.CheckJobID(id) != nil {
			return usagef("--reuse %s: not a job directory (want <dir>/ioswarm-<job id>)", o.Reuse)
		}
		o.Dir, o.Reuse = filepath.Dir(filepath.Clean(o.Reuse)), id
	} else if o.Reuse != ReuseLatest && rank.CheckJobID(o.Reuse) != nil {
		return usagef("--reuse %q: want a job id (as the kept run's table printed it), its directory, or latest", o.Reuse)
	}
	for _, p := range o.Phases {
		if isMD(p) {
			continue // refused by validateMD, with its reason
		}
		if !slices.Contains(readOnlyPhases, p) && !(o.ReuseWrites && p == "randwrite") {
			return usagef("--reuse: phase %s would write the kept files; a reusing job only reads (phases %s)",
				p, strings.Join(readOnlyPhases, ", "))
		}
	}
	return nil
}

// findKept asks rank 0's node for the kept job's manifest and checks it
// against this job: the same threads, file size and placement, or the
// difference named.
func (j *job) findKept(ctx context.Context) (rank.Manifest, error) {
	raw, err := j.s.coord.Call(ctx, rank.KindFindKept, func(r int) any {
		if r != 0 {
			return rank.FindManifest{}
		}
		id := j.o.Reuse
		if id == ReuseLatest {
			id = ""
		}
		return rank.FindManifest{Dir: j.dirOf(j.s.targets[0]), JobID: id}
	})
	var re *barrier.RankError
	if errors.As(err, &re) && re.Rank == 0 {
		// No such kept job, or a damaged manifest: the user's to fix.
		return rank.Manifest{}, usagef("--reuse %s: host %s: %s", j.o.Reuse, re.Host, re.Msg)
	}
	if err != nil {
		return rank.Manifest{}, fmt.Errorf("--reuse %s: %w", j.o.Reuse, err)
	}
	var m rank.Manifest
	if err := json.Unmarshal(raw[0], &m); err != nil {
		return m, fmt.Errorf("rank 0: bad manifest reply: %w", err)
	}
	return m, j.matchKept(m)
}

// matchKept names the first way the kept job differs from this one.
func (j *job) matchKept(m rank.Manifest) error {
	where := fmt.Sprintf("--reuse: kept job %s", m.JobID)
	switch {
	case m.Threads != j.o.Threads:
		return usagef("%s has %d threads' files, this job runs %d threads", where, m.Threads, j.o.Threads)
	case m.FileSize != j.o.FileSize:
		return usagef("%s wrote files of %d bytes, this job's are %d (--file-size or --total)", where, m.FileSize, j.o.FileSize)
	case keptLayout(m) != j.o.Layout:
		return usagef("%s wrote --layout %s files, this job asks for --layout %s", where, keptLayout(m), j.o.Layout)
	case j.o.Layout == rank.LayoutShared && m.Pattern != j.o.Pattern:
		return usagef("%s wrote its shared file --pattern %s, this job asks for --pattern %s", where, m.Pattern, j.o.Pattern)
	case j.o.Layout == rank.LayoutShared && m.Block != j.o.Block && j.o.Pattern == rank.PatternStrided:
		return usagef("%s interleaved records of %d bytes, this job's --block is %d", where, m.Block, j.o.Block)
	}
	for t := 0; t < m.Threads; t++ {
		if h := j.hostOfThread(t); h != m.Hosts[t] {
			return usagef("%s ran thread %d on %s, this job places it on %s (the same hosts in the same order are needed)",
				where, t, m.Hosts[t], h)
		}
	}
	return nil
}

// keptLayout is the layout a manifest describes; manifests from before
// shared files name none.
func keptLayout(m rank.Manifest) string {
	if m.Layout == "" {
		return rank.LayoutPerThread
	}
	return m.Layout
}

// keepManifest leaves, beside the kept files, what a later --reuse job
// needs to read them: written by rank 0 once every phase succeeded, so a
// manifest always describes whole files.
func (j *job) keepManifest(ctx context.Context) error {
	hosts := make([]string, j.o.Threads)
	for t := range hosts {
		hosts[t] = j.hostOfThread(t)
	}
	m := rank.Manifest{JobID: j.id, Seed: j.seed, Threads: j.o.Threads, FileSize: j.o.FileSize,
		Block: j.o.Block, Hosts: hosts, Version: j.o.Version, CreatedAt: time.Now().Format(time.RFC3339),
		Layout: j.o.Layout}
	if j.o.Layout == rank.LayoutShared {
		m.Pattern = j.o.Pattern
	}
	if j.filesOf != "" {
		m.JobID = j.filesOf
	}
	_, err := j.s.coord.Call(ctx, rank.KindManifest, func(r int) any {
		if r != 0 {
			return rank.WriteManifest{}
		}
		return rank.WriteManifest{Manifest: &m}
	})
	if err != nil {
		return fmt.Errorf("writing the kept files' manifest: %w", err)
	}
	return nil
}
