package rank

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"ioswarm/histogram"
	"ioswarm/settings"
	"ioswarm/wire"
)

// Every byte of a shared file belongs to exactly one thread, the one that
// writes it, for both patterns and thread counts that divide nothing
// evenly (1, 3, 5, 7 threads; segments of 6 records): each thread's
// records, mapped, land on bytes no other thread's do, together they
// cover the file, and owner names the writer of every byte.
func TestSharedMapsPartitionTheFile(t *testing.T) {
	const block = 4 * unitSize
	for _, pattern := range []settings.Pattern{settings.Segmented, settings.Strided} {
		for _, threads := range []int{1, 2, 3, 5, 7} {
			seg := int64(6 * block)
			writer := make([]int, seg*int64(threads))
			for i := range writer {
				writer[i] = -1
			}
			for th := 0; th < threads; th++ {
				m := sharedMap(pattern, th, threads, seg, block)
				for l := int64(0); l < seg; l += block {
					off := m.at(l)
					for b := off; b < off+block; b++ {
						if writer[b] != -1 {
							t.Fatalf("%s, %d threads: byte %d written by thread %d and thread %d", pattern, threads, b, writer[b], th)
						}
						writer[b] = th
					}
				}
			}
			m := sharedMap(pattern, 0, threads, seg, block)
			for b, th := range writer {
				if th == -1 {
					t.Fatalf("%s, %d threads: byte %d written by nobody", pattern, threads, b)
				}
				if got := m.owner(int64(b)); got != uint32(th) {
					t.Fatalf("%s, %d threads: owner(%d) = %d, written by %d", pattern, threads, b, got, th)
				}
			}
			if pattern == settings.Segmented && threads == 3 && writer[seg] != 1 {
				t.Errorf("segmented: byte %d (thread 1's first) written by %d", seg, writer[seg])
			}
			if pattern == settings.Strided && threads == 3 && (writer[block] != 1 || writer[3*block] != 0) {
				t.Errorf("strided: records 1 and 3 written by %d and %d, want 1 and 0", writer[block], writer[3*block])
			}
		}
	}
}

// A random operation of a strided thread stays inside one of its records
// (the coordinator requires --block to be a multiple of --rand-block), and
// a whole-file map addresses every byte once.
func TestSharedRandomOffsetsStayInTheThreadsPart(t *testing.T) {
	const block, rb = 8 * unitSize, 2 * unitSize
	m := sharedMap(settings.Strided, 2, 3, 4*block, block)
	g := newOffsetGen(5, 2, m.span(), rb)
	g.m = m
	for i := 0; i < 1000; i++ {
		off := g.next()
		if m.owner(off) != 2 || m.owner(off+rb-1) != 2 || off%rb != 0 {
			t.Fatalf("offset %d: owners %d..%d, want thread 2's", off, m.owner(off), m.owner(off+rb-1))
		}
	}
	w := m.wholeFile()
	if w.span() != 3*4*block || w.at(5*block) != 5*block || w.owner(5*block) != 2 {
		t.Errorf("whole-file map: span %d, at %d, owner %d", w.span(), w.at(5*block), w.owner(5*block))
	}
}

// sharedWorkers are threads workers on one shared file in a temp dir,
// made and sized as makeShared does, with optional io_uring rings.
func sharedWorkers(t *testing.T, pattern settings.Pattern, threads int, seg, block int64) []*worker {
	t.Helper()
	path := filepath.Join(t.TempDir(), wire.SharedFileName)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, seg*int64(threads)); err != nil {
		t.Fatal(err)
	}
	pats := sharedPatterns(1, threads)
	ws := make([]*worker, threads)
	for i := range ws {
		ws[i] = newWorker(i, path, seg, pats[i])
		ws[i].share(path, sharedMap(pattern, i, threads, seg, block))
		ws[i].hist = histogram.New()
	}
	return ws
}

// checkShared reads the shared file and checks every unit against the
// pattern of the thread that owns it.
func checkShared(t *testing.T, ws []*worker) {
	t.Helper()
	data, err := os.ReadFile(ws[0].path)
	if err != nil {
		t.Fatal(err)
	}
	if want := ws[0].size * int64(len(ws)); int64(len(data)) != want {
		t.Fatalf("shared file is %d bytes, want %d", len(data), want)
	}
	src := ws[0].src
	for off := int64(0); off < int64(len(data)); off += unitSize {
		if err := src.check(data[off:off+unitSize], off); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// Threads writing their parts of one file (segmented and strided, the sync
// engine and io_uring) leave every unit stamped by its owner; rotated
// reads verify another thread's part; random writes and reads over the
// whole file keep it verifiable; and the check has teeth: a thread that
// writes into another's part is caught.
func TestSharedFileWriteReadVerify(t *testing.T) {
	const block = 64 << 10
	for _, engine := range []settings.Engine{settings.Sync, settings.IOUring} {
		for _, pattern := range []settings.Pattern{settings.Segmented, settings.Strided} {
			t.Run(engine.String()+"/"+pattern.String(), func(t *testing.T) {
				ws := sharedWorkers(t, pattern, 3, 4*block, block)
				params := func(name string, b int64) *phaseParams {
					p := testParams(wire.Phase(name), b)
					if engine == settings.IOUring {
						p.engine, p.depth = settings.IOUring, 4
					}
					p.verify, p.randScope = true, settings.ScopeFile
					return p
				}
				withRing := func(w *worker, size int64) {
					if engine == settings.IOUring {
						uringWorker(t, w, 4, size)
					}
				}
				for _, w := range ws {
					withRing(w, block)
					runPhaseOn(t, w, params("write", block))
				}
				checkShared(t, ws)
				for i, w := range ws {
					from := (i + 1) % len(ws)
					w.readFrom(from, ws[from].path, ws[from].pat)
					runPhaseOn(t, w, params("read", block))
					if w.rec.Bytes != 4*block {
						t.Errorf("thread %d read %d bytes of thread %d's part, want %d", i, w.rec.Bytes, from, 4*block)
					}
				}
				for _, w := range ws {
					if w.uring != nil {
						w.uring.close()
						w.uring = nil
					}
					withRing(w, patternPeriod)
					runPhaseOn(t, w, params("randwrite", 4096))
					runPhaseOn(t, w, params("randread", 4096))
				}
				checkShared(t, ws)

				// Thread 0 writing thread 1's part (its own stamps there)
				// is caught by thread 1's verified read.
				bad := ws[0]
				bad.m = bad.m.of(1)
				if bad.uring != nil {
					bad.uring.close()
					bad.uring = nil
				}
				withRing(bad, block)
				runPhaseOn(t, bad, params("write", block))
				r := ws[1]
				r.readFrom(1, r.path, r.pat)
				if r.uring != nil {
					r.uring.close()
					r.uring = nil
				}
				withRing(r, block)
				err := r.run(params("read", block), testBuffer(t, r, block))
				if err == nil || !strings.Contains(err.Error(), "thread 0, want thread 1's") {
					t.Errorf("read of a part thread 0 overwrote: %v, want a verify error naming both threads", err)
				}
			})
		}
	}
}

// A failed create names the thread and the file: a directory with room
// for three inodes (a tmpfs with nr_inodes) fills at the third file.
func TestMetadataCreateFailureNamesThreadAndPath(t *testing.T) {
	if testing.Short() {
		t.Skip("uses root: skipped in -short mode")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "nr_inodes=4"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	defer unix.Unmount(dir, 0)
	s := &state{job: wire.Job{MDFiles: 10, MDSize: 100}, jobDir: dir, dir: openTestDir(t, dir)}
	defer s.closeDirs() // before the unmount
	s.workers = []*worker{newWorker(7, "", 0, newPattern(1, 7))}
	s.setupMD()
	if err := s.prepareMD("mdcreate"); err != nil {
		t.Fatal(err)
	}
	w := s.workers[0]
	w.hist = histogram.New()
	p := testParams("mdcreate", 4096)
	p.mdFiles, p.mdSize = 10, 100
	err := w.run(p, testBuffer(t, w, 4096))
	if err == nil || !strings.Contains(err.Error(), "thread 7: mdcreate "+dir+"/md-t7/f") ||
		!strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("create past the inode limit: %v", err)
	}
	if err := s.removeMD(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left after removeMD: %v", left)
	}
}

// Each metadata phase does one operation per file and leaves what the
// next expects; a verified read catches a file whose contents changed.
func TestMetadataPhasesCountAndVerify(t *testing.T) {
	for _, shared := range []bool{false, true} {
		dir := t.TempDir()
		mddir := settings.MDDirPerThread
		if shared {
			mddir = settings.MDDirShared
		}
		s := &state{job: wire.Job{MDFiles: 50, MDSize: 3901, MDDir: mddir}, jobDir: dir, dir: openTestDir(t, dir)}
		s.workers = []*worker{newWorker(0, "", 0, newPattern(1, 0)), newWorker(1, "", 0, newPattern(1, 1))}
		s.setupMD()
		for _, name := range wire.MDPhases {
			if err := s.prepareMD(name); err != nil {
				t.Fatal(err)
			}
			if name == "mddelete" {
				// Corrupted content fails mdread's check; redo it first.
				corruptByte(t, filepath.Join(dir, mdRel(shared, 1, 17)), 100)
				w := s.workers[1]
				w.hist = histogram.New()
				p := testParams("mdread", 8192)
				p.mdFiles, p.mdSize, p.verify = 50, 3901, true
				buf := testBuffer(t, w, 8192)
				if err := w.run(p, buf); err == nil || !strings.Contains(err.Error(), "verify") {
					t.Errorf("shared %v: read of a corrupted file: %v", shared, err)
				}
			}
			for _, w := range s.workers {
				w.hist = histogram.New()
				p := testParams(name, 8192)
				p.mdFiles, p.mdSize, p.verify = 50, 3901, true
				if err := w.run(p, testBuffer(t, w, 8192)); err != nil {
					t.Fatalf("shared %v: %s: %v", shared, name, err)
				}
				if w.rec.Ops != 50 || w.hist.Count() != 50 {
					t.Errorf("shared %v: %s: %d ops, %d latencies; want 50", shared, name, w.rec.Ops, w.hist.Count())
				}
				if want := filepath.Join(dir, mdDirName(w.thread, shared)); w.rec.File != want {
					t.Errorf("shared %v: %s: thread %d's record names %q, want its directory %q", shared, name, w.thread, w.rec.File, want)
				}
			}
			s.phaseDone(name)
		}
		if err := s.removeMD(); err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("shared %v: left: %v", shared, left)
		}
	}
}

// mdRel is file j of thread's path under the job directory.
func mdRel(shared bool, thread, j int) string {
	if shared {
		return fmt.Sprintf("md-shared/t%d.f%d", thread, j)
	}
	return fmt.Sprintf("md-t%d/f%d", thread, j)
}

// A per-thread file of a thread other than 0, read rotated on either
// engine, verifies against its writer's pattern (a regression: the
// per-thread map once named thread 0 as every unit's owner).
func TestPerThreadVerifyOfAnotherThread(t *testing.T) {
	const block = 64 << 10
	for _, engine := range []settings.Engine{settings.Sync, settings.IOUring} {
		writer := testWorker(t, 4*block)
		writer = newWorker(3, writer.path, 4*block, newPattern(1, 3))
		runPhaseOn(t, writer, testParams("write", block))
		reader := newWorker(1, writer.path+".r", 4*block, newPattern(1, 1))
		reader.readFrom(3, writer.path, newPattern(1, 3))
		p := testParams("read", block)
		p.verify = true
		if engine == settings.IOUring {
			uringWorker(t, reader, 4, block)
			p.engine, p.depth = settings.IOUring, 4
		}
		runPhaseOn(t, reader, p)
	}
}
