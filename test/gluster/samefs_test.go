package gluster

// The same-filesystem check, written against its contract before it
// lands: until then these tests fail, since ioswarm runs on whatever each
// node has at --dir. Run them alone with -run TestSameFS.
//
// Contract: a node whose --dir is on another filesystem than the others'
// (type or source), or on a read-only mount, makes `ioswarm run` exit
// non-zero before any file is written, with a one-line error naming that
// node and saying "same filesystem" (or "read-only"); --allow-mixed-fs
// lets the mixed run go ahead (with --read-shift 0, so that no node looks
// for a file only the others can see).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// node2 lost its mount: the empty mount point, on the machine's ext4,
// is all it has at --dir, and today the run writes node2's share there.
func TestSameFSMissingMountRefused(t *testing.T) {
	e := newEnv(t, 3, cluster.Options{})
	if err := e.v.Unmount("node2"); err != nil {
		t.Fatal(err)
	}
	// node2 sees the mount point as the root namespace does; the others
	// see the volume's root there.
	dir := e.v.MountPoint
	before := e.dirStamps(t, dir)
	o, out := e.run(t, "", dir)
	logOutcome(t, o.Code, o.Stderr, out)
	if o.Code == 0 {
		t.Errorf("the run with node2 on ext4 and the others on fuse.glusterfs succeeded; want a refusal")
	} else if line := lineWith(o.Stderr, "node2", "same filesystem"); line == "" {
		t.Errorf("exit %d, but no line names node2 and says \"same filesystem\"; stderr:\n%s", o.Code, o.Stderr)
	} else {
		for _, other := range []string{"host node1", "host node3"} {
			if strings.Contains(line, other) {
				t.Errorf("the refusal blames %s too: %q", other, line)
			}
		}
	}
	e.checkUntouched(t, before)

	// Told that mixing is meant, the run goes ahead, node2 on ext4. Each
	// thread must read its own file: with the default shift node2 would
	// look for another node's file, which only the volume holds.
	j := e.mustRun(t, "", dir, "--allow-mixed-fs", "--read-shift", "0")
	for _, h := range j.Hosts {
		want := "fuse.glusterfs"
		if h.Host == "node2" {
			want = "ext4"
		}
		if h.FSType != want {
			t.Errorf("--allow-mixed-fs: host %s fs_type %q, want %s", h.Host, h.FSType, want)
		}
	}
	e.checkNoJobFiles(t, dir)
	if left := harness.DirEntries(t, dir); len(left) > 0 {
		t.Errorf("--allow-mixed-fs: the run left %v in node2's (unmounted) %s", left, dir)
	}
}

// node3 mounts the volume read-only: the run must say so before writing,
// rather than fail part way through the write phase.
func TestSameFSReadOnlyMountRefused(t *testing.T) {
	e := newEnv(t, 3, cluster.Options{})
	dir := e.v.Mkdir(t, "")
	if err := e.v.Unmount("node3"); err != nil {
		t.Fatal(err)
	}
	if err := e.v.Mount("node3", "ro"); err != nil {
		t.Fatal(err)
	}
	before := e.dirStamps(t, dir)
	o, out := e.run(t, "", dir)
	logOutcome(t, o.Code, o.Stderr, out)
	if o.Code == 0 {
		t.Errorf("the run with node3's mount read-only succeeded")
	} else if lineWith(o.Stderr, "node3", "read-only") == "" {
		t.Errorf("exit %d, but no line names node3 and says \"read-only\"; stderr:\n%s", o.Code, o.Stderr)
	}
	e.checkUntouched(t, before)
}

// stamps are the modification times of one run directory in every brick
// and in the root namespace (what a node without the mount sees).
// Creating or removing an entry in a directory changes its mtime, so a run
// that wrote any file there, even one it removed again, shows.
type stamps struct {
	dir    string
	mtimes map[string]time.Time
}

func (e *env) dirStamps(t *testing.T, dir string) stamps {
	t.Helper()
	rel, err := filepath.Rel(e.v.MountPoint, dir)
	if err != nil {
		t.Fatal(err)
	}
	s := stamps{dir: dir, mtimes: map[string]time.Time{}}
	for _, b := range e.v.Bricks {
		p := filepath.Join(b, rel)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		s.mtimes[p] = st.ModTime()
	}
	// Beside the volume the directory exists only when it is the mount
	// point itself.
	if st, err := os.Stat(dir); err == nil {
		s.mtimes[dir] = st.ModTime()
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return s
}

// checkUntouched fails the test if the run created (or removed) anything
// in its directory, on the volume or beside it.
func (e *env) checkUntouched(t *testing.T, before stamps) {
	t.Helper()
	for p, mt := range e.dirStamps(t, before.dir).mtimes {
		if was := before.mtimes[p]; !mt.Equal(was) {
			t.Errorf("%s was written to during the run (mtime %v, was %v): files were made before the refusal",
				p, mt.Format(time.RFC3339Nano), was.Format(time.RFC3339Nano))
		}
	}
	if left := e.v.BrickEntries(t, isJobEntry); len(left) > 0 {
		t.Errorf("the refused run left files in the bricks: %v", left)
	}
}

// logOutcome records what a run did, for the record of how ioswarm treats
// a mixed cluster today: its exit, the last lines of its standard error,
// and each host's filesystem if it wrote a result.
func logOutcome(t *testing.T, code int, stderr, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	t.Logf("exit %d; stderr ends:\n%s", code, strings.Join(lines[max(0, len(lines)-6):], "\n"))
	if _, err := os.Stat(out); err != nil {
		return
	}
	j := loadJob(t, out)
	for _, h := range j.Hosts {
		t.Logf("  host %s: fs_type %s", h.Host, h.FSType)
	}
}
