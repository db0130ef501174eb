package rank

import (
	"testing"

	"ioswarm/histogram"
	"ioswarm/settings"
	"ioswarm/wire"
)

// A metadata phase's bytes are the data its operations moved: --md-size
// per file for mdcreate and mdread, none for mdstat and mddelete. A phase
// cut by its stonewall counts by the same rule as one that ran to its
// last file (a regression: a stonewalled mdstat or mddelete once counted
// --md-size per file, and the same phase finished counted 0).
func TestMetadataBytesAgreeStonewalledOrNot(t *testing.T) {
	const files, size = 8, 3901
	dir := t.TempDir()
	s := &state{job: wire.Job{Job: settings.Job{FilesPerThread: files, MDSize: size, MDDir: settings.MDDirPerThread}},
		jobDir: dir, dir: openTestDir(t, dir)}
	w := newWorker(0, "", 0, newPattern(1, 0))
	s.workers = []*worker{w}
	s.setupMD()
	perFile := map[wire.Phase]int64{wire.MDCreate: size, wire.MDStat: 0, wire.MDRead: size, wire.MDDelete: 0}
	for _, name := range wire.MDPhases {
		for _, wall := range []int64{pastStonewall, 0} {
			if err := s.prepareMD(name); err != nil {
				t.Fatal(err)
			}
			p := testParams(name, 8192)
			p.mdFiles, p.mdSize, p.stonewall = files, size, wall
			w.hist = histogram.New()
			if err := w.run(p, testBuffer(t, w, 8192)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s.phaseDone(name)
			wantOps := int64(files)
			if wall != 0 {
				wantOps = 1 // a stonewall already past cuts after the first file
			}
			r := w.rec
			want := wantOps * perFile[name]
			if r.Ops != wantOps || r.Stonewalled != (wall != 0) || r.Bytes != want {
				t.Errorf("%s stonewalled %v: %d ops, %d bytes; want %d ops, %d bytes", name, wall != 0, r.Ops, r.Bytes, wantOps, want)
			}
			if got := w.done.Load(); got != want {
				t.Errorf("%s stonewalled %v: progress says %d bytes, the record %d", name, wall != 0, got, want)
			}
			if got := w.bytesAt(r.EndNS+1e12, perFile[name]); got != want {
				t.Errorf("%s stonewalled %v: %d bytes at first-done after the end, want %d", name, wall != 0, got, want)
			}
		}
	}
}
