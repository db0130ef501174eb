package slurmrun

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// IOzone's two commands inside an allocation, with no -+m: ranks start
// through srun, the first command keeps its files and the second reads
// exactly those back.
func TestIOzoneWriteThenReadThroughSrun(t *testing.T) {
	e := newEnv(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir, data := sharedDir(t, e, "iozone-")
	w, r := filepath.Join(dir, "w.json"), filepath.Join(dir, "r.json")
	e.salloc(ctx, t, data, "-N4", e.shared, "iozone", "-i0", "-c", "-e", "-w", "-r", "1M", "-s", "2m", "-t", "4", "-+n",
		"--remote-bin", e.shared, "--output", w)
	e.salloc(ctx, t, data, "-N4", e.shared, "iozone", "-i1", "-c", "-e", "-r", "1M", "-s", "2m", "-t", "4", "-+n",
		"--remote-bin", e.shared, "--verify", "--output", r)
	written, read := harness.LoadIOzoneJob(t, w), harness.LoadIOzoneJob(t, r)
	if written.Launcher != "srun" || read.Launcher != "srun" {
		t.Errorf("launchers %q and %q, want srun", written.Launcher, read.Launcher)
	}
	if read.Config.ReusedJob != written.JobID || len(read.Phases) != 1 || !read.Phases[0].Verified {
		t.Errorf("the read used job %q's files (want %s), phases %+v", read.Config.ReusedJob, written.JobID, read.Phases)
	}
	if err := figures.Check(read); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	// The second command had no -w: IOzone removes the files, and so do we.
	if left := harness.DirEntries(t, data); len(left) != 0 {
		t.Errorf("left in %s: %v", data, left)
	}
	e.waitNoLeftovers(t, 5*time.Second)
}
