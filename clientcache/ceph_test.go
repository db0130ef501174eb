package clientcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/mounts"
)

// fakeProc builds a /proc tree: self's mount namespace and, per process,
// comm, cmdline and its mount namespace ("" leaves ns unreadable).
type fakeProcess struct {
	pid, comm, ns string
	argv          []string
}

func fakeProc(t *testing.T, selfNS string, procs ...fakeProcess) string {
	t.Helper()
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "self/ns"), 0o755))
	must(os.Symlink(selfNS, filepath.Join(root, "self/ns/mnt")))
	for _, p := range procs {
		dir := filepath.Join(root, p.pid)
		must(os.MkdirAll(filepath.Join(dir, "ns"), 0o755))
		must(os.WriteFile(filepath.Join(dir, "comm"), []byte(p.comm+"\n"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(p.argv, "\x00")+"\x00"), 0o644))
		if p.ns != "" {
			must(os.Symlink(p.ns, filepath.Join(dir, "ns/mnt")))
		}
		must(os.Symlink("/", filepath.Join(dir, "cwd")))
	}
	return root
}

func fuseArgv(point, sock string) []string {
	argv := []string{"ceph-fuse", "-c", "/etc/ceph/ceph.conf", "--id", "admin"}
	if sock != "" {
		argv = append(argv, "--admin-socket", sock)
	}
	return append(argv, point)
}

func TestCephFuseProcessOfThisNamespace(t *testing.T) {
	// Two nodes of a test bed mount at one path; only ours counts.
	proc := fakeProc(t, "mnt:[2]",
		fakeProcess{"10", "ceph-fuse", "mnt:[1]", fuseArgv("/mnt/ceph", "/run/n1.asok")},
		fakeProcess{"11", "bash", "mnt:[2]", []string{"bash", "/mnt/ceph"}},
		fakeProcess{"12", "ceph-fuse", "mnt:[2]", fuseArgv("/mnt/other", "/run/x.asok")},
		fakeProcess{"13", "ceph-fuse", "mnt:[2]", fuseArgv("/mnt/ceph/", "/run/n2.asok")},
	)
	pid, argv, err := cephFuseProcess(proc, "/mnt/ceph")
	if err != nil {
		t.Fatal(err)
	}
	if pid != 13 {
		t.Errorf("pid %d, want 13", pid)
	}
	sock, err := adminSocket(proc, pid, argv)
	if err != nil || sock != "/run/n2.asok" {
		t.Errorf("socket %q, %v; want /run/n2.asok", sock, err)
	}
}

func TestCephFuseProcessOfAnotherUser(t *testing.T) {
	proc := fakeProc(t, "mnt:[2]", fakeProcess{"10", "ceph-fuse", "", fuseArgv("/mnt/ceph", "")})
	_, _, err := cephFuseProcess(proc, "/mnt/ceph")
	if err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("err %v, want one saying the process is another user's", err)
	}
	proc = fakeProc(t, "mnt:[2]")
	if _, _, err := cephFuseProcess(proc, "/mnt/ceph"); err == nil || !strings.Contains(err.Error(), "no ceph-fuse process") {
		t.Errorf("err %v, want one saying none serves it", err)
	}
}

func TestAdminSocketFromOpenSockets(t *testing.T) {
	// No --admin-socket: the process's own listening .asok socket.
	proc := fakeProc(t, "mnt:[2]", fakeProcess{"20", "ceph-fuse", "mnt:[2]", fuseArgv("/mnt/ceph", "/run/$cluster-$name.$pid.asok")})
	fd := filepath.Join(proc, "20/fd")
	if err := os.MkdirAll(filepath.Join(proc, "20/net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fd, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"3": "socket:[777]", "4": "/dev/fuse", "5": "socket:[888]"} {
		if err := os.Symlink(target, filepath.Join(fd, name)); err != nil {
			t.Fatal(err)
		}
	}
	unix := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 555 /run/other.asok\n" +
		"0000000000000000: 00000002 00000000 00000000 0001 03 777\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 888 /var/run/ceph/ceph-client.admin.20.94.asok\n"
	if err := os.WriteFile(filepath.Join(proc, "20/net/unix"), []byte(unix), 0o644); err != nil {
		t.Fatal(err)
	}
	_, argv, err := cephFuseProcess(proc, "/mnt/ceph")
	if err != nil {
		t.Fatal(err)
	}
	sock, err := adminSocket(proc, 20, argv)
	if want := "/var/run/ceph/ceph-client.admin.20.94.asok"; err != nil || sock != want {
		t.Errorf("socket %q, %v; want %s", sock, err, want)
	}
}

func TestArgValue(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"ceph-fuse", "--admin-socket", "/a.asok", "/mnt"}, "/a.asok"},
		{[]string{"ceph-fuse", "--admin_socket=/b.asok", "/mnt"}, "/b.asok"},
		{[]string{"ceph-fuse", "/mnt", "--admin-socket"}, ""},
		{[]string{"ceph-fuse", "/mnt"}, ""},
	} {
		if got := argValue(c.argv, "admin-socket"); got != c.want {
			t.Errorf("argValue(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestProbeCephFuseEndToEnd(t *testing.T) {
	sock := fakeSocket(t, cephAnswers, 0)
	proc := fakeProc(t, "mnt:[2]", fakeProcess{"30", "ceph-fuse", "mnt:[2]", fuseArgv("/mnt/ceph", sock)})
	c := probeWith(context.Background(), env{proc: proc}, mounts.Mount{Point: "/mnt/ceph", Type: "fuse.ceph-fuse"})
	want := Info{Kind: CephFuse, Size: 64 << 20, Outside: true, Counters: true}
	if got := c.Info(); got != want {
		t.Errorf("info %+v, want %+v", got, want)
	}
	n, err := c.Read(context.Background())
	if err != nil || n.MissBytes != 1<<20 {
		t.Errorf("counters %+v, %v; want 1 MiB missed", n, err)
	}
}

func TestProbeCephFuseWithoutProcess(t *testing.T) {
	proc := fakeProc(t, "mnt:[2]")
	c := probeWith(context.Background(), env{proc: proc}, mounts.Mount{Point: "/mnt/ceph", Type: "fuse.ceph-fuse"})
	info := c.Info()
	if info.Kind != CephFuse || !info.Outside || info.Counters || info.Note == "" {
		t.Errorf("info %+v: want the kind known from the type, no counters, and a note", info)
	}
	if _, err := c.Read(context.Background()); err != ErrNoCounters {
		t.Errorf("Read: %v, want ErrNoCounters", err)
	}
}

func TestProbeOtherFilesystems(t *testing.T) {
	for _, typ := range []string{"ext4", "fuse.glusterfs", "tmpfs"} {
		c := probeWith(context.Background(), env{proc: t.TempDir()}, mounts.Mount{Point: "/x", Type: typ})
		if got := c.Info(); got != (Info{Kind: PageCache}) {
			t.Errorf("%s: info %+v, want the page cache alone", typ, got)
		}
	}
}

func TestCountersSub(t *testing.T) {
	got := Counters{HitBytes: 10, MissBytes: 100, FetchedBytes: 7}.Sub(Counters{HitBytes: 4, MissBytes: 40, FetchedBytes: 2})
	if got != (Counters{HitBytes: 6, MissBytes: 60, FetchedBytes: 5}) {
		t.Errorf("Sub = %+v", got)
	}
}
