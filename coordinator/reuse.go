package coordinator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"ioswarm/barrier"
	"ioswarm/settings"
	"ioswarm/wire"
)

// ReuseLatest asks for the newest kept job under --dir.
const ReuseLatest = "latest"

// readOnlyPhases are the phases a job may run on another job's files
// without writing them; with ReuseWrites randwrite may run too, which
// writes each block's own bytes again (the job takes the kept job's seed),
// so the files stay what their manifest says.
func readOnlyPhases() []string {
	var names []string
	for _, p := range wire.Phases {
		if p.IsRead() {
			names = append(names, p.String())
		}
	}
	return names
}

// ParseReuse reads --reuse: a job id or "latest", returned as it is
// with dir "", or a job directory <dir>/ioswarm-<id>, returned as dir
// (which then stands for --dir) and id.
func ParseReuse(text string) (dir, id string, err error) {
	if !strings.Contains(text, "/") {
		return "", text, nil
	}
	base := filepath.Base(filepath.Clean(text))
	id, ok := strings.CutPrefix(base, wire.JobDirPrefix)
	if !ok || wire.CheckJobID(id) != nil {
		return "", "", usagef("--reuse %s: not a job directory (want <dir>/ioswarm-<job id>)", text)
	}
	return filepath.Dir(filepath.Clean(text)), id, nil
}

// validateReuse checks Reuse (a job id or "latest", see ParseReuse) and
// that the phases only read.
func (o *Workload) validateReuse() error {
	if o.Reuse == "" {
		return nil
	}
	if o.Reuse != ReuseLatest && wire.CheckJobID(o.Reuse) != nil {
		return usagef("--reuse %q: want a job id (as the kept run's table printed it), its directory, or latest", o.Reuse)
	}
	for _, p := range o.Phases {
		if p.IsMeta() {
			continue // refused by validateMD, with its reason
		}
		if !p.IsRead() && !(o.ReuseWrites && p == wire.RandWrite) {
			if o.ReuseWrites {
				return usagef("--reuse: phase %s would write the kept files anew; a reusing job reads them or random-writes the bytes they hold (phases %s, randwrite)",
					p, strings.Join(readOnlyPhases(), ", "))
			}
			return usagef("--reuse: phase %s would write the kept files; a reusing job only reads (phases %s)",
				p, strings.Join(readOnlyPhases(), ", "))
		}
	}
	return nil
}

// findKept asks rank 0's node for the kept job's manifest and checks it
// against this job: the same threads, file size and placement, or the
// difference named.
func (j *job) findKept(ctx context.Context) (wire.Manifest, error) {
	kept, err := callAll[wire.Manifest](ctx, j.s.coord, wire.KindFindKept, "manifest", func(r int) any {
		if r != 0 {
			return wire.FindManifest{}
		}
		id := j.o.Reuse
		if id == ReuseLatest {
			id = ""
		}
		return wire.FindManifest{Dir: j.dirOf(j.s.targets[0]), JobID: id}
	})
	var re *barrier.RankError
	if errors.As(err, &re) && re.Rank == 0 {
		// No such kept job, or a damaged manifest: the user's to fix.
		return wire.Manifest{}, usagef("--reuse %s: host %s: %s", j.o.Reuse, re.Host, re.Msg)
	}
	if err != nil {
		return wire.Manifest{}, fmt.Errorf("--reuse %s: %w", j.o.Reuse, err)
	}
	return kept[0], j.matchKept(kept[0])
}

// matchKept names the first way the kept job differs from this one.
func (j *job) matchKept(m wire.Manifest) error {
	where := fmt.Sprintf("--reuse: kept job %s", m.JobID)
	switch {
	case m.Threads < j.o.Threads:
		return usagef("%s has %d threads' files, this job runs %d threads", where, m.Threads, j.o.Threads)
	case m.Threads > j.o.Threads && !j.o.Keep:
		// Its cleanup would remove the files it read and leave the others
		// without their manifest.
		return usagef("%s has %d threads' files, this job runs %d threads and without --keep would remove only theirs: "+
			"add --keep (IOzone's -w) to read the first %d, or run %d threads", where, m.Threads, j.o.Threads, j.o.Threads, m.Threads)
	case m.FileSize != j.o.FileSize:
		return usagef("%s wrote files of %d bytes, this job's are %d (--file-size or --total)", where, m.FileSize, j.o.FileSize)
	case keptLayout(m) != j.o.Layout:
		return usagef("%s wrote --layout %s files, this job asks for --layout %s", where, keptLayout(m), j.o.Layout)
	case j.o.Layout == settings.Shared && m.Pattern != j.o.Pattern:
		return usagef("%s wrote its shared file --pattern %s, this job asks for --pattern %s", where, m.Pattern, j.o.Pattern)
	case j.o.Layout == settings.Shared && m.Block != j.o.Block && j.o.Pattern == settings.Strided:
		return usagef("%s interleaved records of %d bytes, this job's --block is %d", where, m.Block, j.o.Block)
	}
	// Fewer threads read the first files, as IOzone's -i1 -t 4 after a
	// -t 8 write does: thread t reads kept thread t's file.
	for t := 0; t < j.o.Threads; t++ {
		if h := j.hostOfThread(t); h != m.Hosts[t] {
			return usagef("%s ran thread %d on %s, this job places it on %s (the same hosts in the same order are needed)",
				where, t, m.Hosts[t], h)
		}
	}
	return nil
}

// keptLayout is the layout a manifest describes; manifests from before
// shared files name none.
func keptLayout(m wire.Manifest) settings.Layout {
	if m.Layout == "" {
		return settings.PerThread
	}
	return m.Layout
}

// keepManifest leaves, beside the kept files, what a later --reuse job
// needs to read them: written by rank 0 once every phase succeeded, so a
// manifest always describes whole files.
func (j *job) keepManifest(ctx context.Context) error {
	if j.filesOf != "" && j.keptThreads > j.o.Threads {
		return nil // the kept manifest describes every file, this job's first ones among them
	}
	hosts := make([]string, j.o.Threads)
	for t := range hosts {
		hosts[t] = j.hostOfThread(t)
	}
	m := wire.Manifest{JobID: j.id, Seed: j.seed, Threads: j.o.Threads, FileSize: j.o.FileSize,
		Block: j.o.Block, Hosts: hosts, Version: j.o.Version, CreatedAt: time.Now().Format(time.RFC3339),
		Layout: j.o.Layout}
	if j.o.Layout == settings.Shared {
		m.Pattern = j.o.Pattern
	}
	if j.filesOf != "" {
		m.JobID = j.filesOf
	}
	j.keptTouches(&m)
	// A reusing job's files are the kept job's, no newer.
	return j.writeManifest(ctx, m, j.filesOf != "")
}

// recordReuse adds, after a read phase of a job reusing kept files, the
// nodes that read them to the kept job's manifest: a later --reuse then
// reads them elsewhere, or says that no untouched node is left. (A kept
// job's own manifest is written once every phase succeeded.)
func (j *job) recordReuse(ctx context.Context, ph wire.Phase) error {
	if j.filesOf == "" || !ph.IsRead() {
		return nil
	}
	m := j.kept
	j.keptTouches(&m)
	return j.writeManifest(ctx, m, true)
}

// writeManifest has rank 0 write m into the job directory; keepTime
// keeps an existing manifest's modification time.
func (j *job) writeManifest(ctx context.Context, m wire.Manifest, keepTime bool) error {
	_, err := j.s.coord.Call(ctx, wire.KindManifest, func(r int) any {
		if r != 0 {
			return wire.WriteManifest{}
		}
		return wire.WriteManifest{Manifest: &m, KeepTime: keepTime}
	})
	if err != nil {
		return fmt.Errorf("writing the kept files' manifest: %w", err)
	}
	return nil
}
