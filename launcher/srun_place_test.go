package launcher

import (
	"context"
	"errors"
	"ioswarm/internal/testio"
	"ioswarm/mounts"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSharedFS(t *testing.T) {
	for _, fs := range []string{"nfs", "nfs4", "lustre", "gpfs", "beegfs", "fuse.beegfs", "ceph", "panfs", "wekafs"} {
		if !sharedFS(fs) {
			t.Errorf("sharedFS(%q) = false, want true", fs)
		}
	}
	for _, fs := range []string{"ext4", "xfs", "tmpfs", "overlay", "btrfs", "unknown", ""} {
		if sharedFS(fs) {
			t.Errorf("sharedFS(%q) = true, want false", fs)
		}
	}
}

func TestAllocationFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	a, err := AllocationFromEnv(env("SLURM_JOB_ID", "77", "SLURM_JOB_NODELIST", "n[08-10],gpu1", "SLURM_NODELIST", "ignored"))
	if err != nil || a.JobID != "77" || !slices.Equal(a.Nodes, []string{"n08", "n09", "n10", "gpu1"}) {
		t.Errorf("AllocationFromEnv = %+v, %v", a, err)
	}
	ts := a.Targets()
	if len(ts) != 4 || ts[2] != (Target{Rank: 2, Host: "n10"}) {
		t.Errorf("Targets = %+v", ts)
	}
	if a, err := AllocationFromEnv(env("SLURM_JOB_ID", "5", "SLURM_NODELIST", "c1")); err != nil || !slices.Equal(a.Nodes, []string{"c1"}) {
		t.Errorf("with only SLURM_NODELIST: %+v, %v", a, err)
	}
	bad := []struct {
		env  func(string) string
		want string
	}{
		{env("SLURM_JOB_NODELIST", "n1"), "not inside a Slurm allocation (SLURM_JOB_ID is not set)"},
		{env("SLURM_JOB_ID", "5"), "SLURM_JOB_NODELIST is not set"},
		{env("SLURM_JOB_ID", "5", "SLURM_JOB_NODELIST", "n[1-"), `SLURM_JOB_NODELIST="n[1-"`},
	}
	for _, b := range bad {
		if _, err := AllocationFromEnv(b.env); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("AllocationFromEnv error = %v, want it to say %q", err, b.want)
		}
	}
}

// sbcastSrun is a launcher on the fake tools whose binary (a script in a
// temporary directory, not a shared filesystem) must be copied.
func sbcastSrun(t *testing.T, f *fakeSlurm, log *testio.LockedBuffer, nodes ...string) *Srun {
	t.Helper()
	bin := filepath.Join(f.dir, "ioswarm")
	writeExec(t, bin, "#!/bin/sh\necho \"copy ran: $*\"\n")
	l := &Srun{Binary: bin, Alloc: Allocation{JobID: "42", Nodes: nodes}, BcastDir: t.TempDir(),
		Tools: f.tools, Log: NewLineWriter(log), Grace: 600 * time.Millisecond, resolver: offlineResolver()}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestSrunPrepareBroadcastsRunsTheCopyAndCloseRemovesIt(t *testing.T) {
	f := newFakeSlurm(t, "NodeName=n1 NodeAddr=127.0.0.1 State=IDLE\nNodeName=n2 NodeAddr=127.0.0.1 State=IDLE\n")
	var log testio.LockedBuffer
	l := sbcastSrun(t, f, &log, "n1", "n2")
	if fs := mounts.FSType(f.dir); sharedFS(fs) {
		t.Skipf("the temporary directory is on %s, which counts as shared: no copy would be made", fs)
	}
	addrs, err := l.Prepare(context.Background(), l.Alloc.Targets())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(addrs, []string{"127.0.0.1", "127.0.0.1"}) {
		t.Errorf("addresses = %q, want the loopback source address for both nodes", addrs)
	}
	if got := f.calls(t, f.tools.Scontrol); !slices.Equal(got, []string{"show node -o n[1-2]"}) {
		t.Errorf("scontrol calls = %q", got)
	}
	copies, _ := filepath.Glob(filepath.Join(l.BcastDir, "ioswarm-42-*"))
	if len(copies) != 1 || len(filepath.Base(copies[0])) != len("ioswarm-42-")+12 {
		t.Fatalf("copies after Prepare = %q, want one ioswarm-42-<12 hex digits>", copies)
	}
	if got := f.calls(t, f.tools.Sbcast); !slices.Equal(got, []string{"--force --preserve " + l.Binary + " " + copies[0]}) {
		t.Errorf("sbcast calls = %q", got)
	}
	out, err := l.Exec(context.Background(), Target{Host: "n2"}, []string{"probe"})
	if err != nil || string(out) != "copy ran: probe\n" {
		t.Errorf("Exec after placement = %q, %v; want the copy to run", out, err)
	}
	if !strings.Contains(log.String(), "srun: sbcast put "+l.Binary) {
		t.Errorf("placement not logged:\n%s", log.String())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copies[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy survives Close (stat: %v)", err)
	}
	// The guard over both nodes came first and removed the copy as it
	// ended, so no removal step was needed.
	calls := f.calls(t, f.tools.Srun)
	if want := strings.Join(guardArgs([]string{"n1", "n2"}, copies[0]), " "); len(calls) != 2 || calls[0] != want {
		t.Errorf("srun calls = %q, want the guard %q, then the probe", calls, want)
	}
}

func TestSrunBroadcastFailureNamesTheNode(t *testing.T) {
	f := newFakeSlurm(t, "")
	var log testio.LockedBuffer
	l := sbcastSrun(t, f, &log, "n1", "n2", "n3")
	if fs := mounts.FSType(f.dir); sharedFS(fs) {
		t.Skipf("the temporary directory is on %s, which counts as shared", fs)
	}
	l.Advertise = "127.0.0.1"
	f.fail(t, f.tools.Sbcast, "sbcast: error: REQUEST_FILE_BCAST(n2): Communication connection failure\n")
	_, err := l.Prepare(context.Background(), l.Alloc.Targets())
	var herrs HostErrors
	if !errors.As(err, &herrs) || len(herrs) != 1 || herrs[0].Host != "n2" || herrs[0].Rank != 1 {
		t.Fatalf("Prepare = %v, want one HostError for n2 rank 1", err)
	}
	if !strings.Contains(err.Error(), "REQUEST_FILE_BCAST(n2): Communication connection failure") {
		t.Errorf("error %q does not quote sbcast", err)
	}
	// A node without a rank (--threads 2 here) still fails the broadcast,
	// and the error says which node it was.
	_, err = l.Prepare(context.Background(), l.Alloc.Targets()[:1])
	if err == nil || !strings.Contains(err.Error(), "on n2:") || !strings.Contains(err.Error(), "--remote-bin") {
		t.Errorf("Prepare of n1 alone = %v, want a failure naming n2 and suggesting --remote-bin", err)
	}
	l.Close()
	calls := f.calls(t, f.tools.Srun)
	if len(calls) == 0 || !strings.Contains(calls[len(calls)-1], "--nodelist=n[1,3] ") {
		t.Errorf("srun calls %q: want the copy removed from n1 and n3 only", calls)
	}
}

func TestSrunRemoteBinAndTargetExeSkipTheCopy(t *testing.T) {
	f := newFakeSlurm(t, "")
	var log testio.LockedBuffer
	l := sbcastSrun(t, f, &log, "n1", "n2")
	l.RemoteBin = "/opt/ioswarm/bin/ioswarm"
	l.Advertise = "10.9.9.9"
	addrs, err := l.Prepare(context.Background(), l.Alloc.Targets())
	if err != nil || !slices.Equal(addrs, []string{"10.9.9.9", "10.9.9.9"}) {
		t.Fatalf("Prepare = %q, %v; want the advertised address for each node", addrs, err)
	}
	if exe, err := l.exeOf(Target{Host: "n1"}); err != nil || exe != l.RemoteBin {
		t.Errorf("exe = %q, %v; want %s", exe, err, l.RemoteBin)
	}
	if exe, _ := l.exeOf(Target{Host: "n2", Exe: "/own/ioswarm"}); exe != "/own/ioswarm" {
		t.Errorf("a target's own binary was not used: %q", exe)
	}
	if got := f.calls(t, f.tools.Sbcast); got != nil {
		t.Errorf("sbcast ran with --remote-bin: %q", got)
	}
	if got := f.calls(t, f.tools.Scontrol); got != nil {
		t.Errorf("scontrol ran with an advertised address: %q", got)
	}
	l.Close()
	if got := f.calls(t, f.tools.Srun); got != nil {
		t.Errorf("Close ran srun with nothing to remove: %q", got)
	}
}

// offlineResolver answers from /etc/hosts only: a test sends no DNS query.
func offlineResolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS in tests")
	}}
}

func TestSrunAddressesResolveNamesWhenScontrolFails(t *testing.T) {
	f := newFakeSlurm(t, "")
	writeExec(t, f.tools.Scontrol, "#!/bin/sh\necho 'slurm_load_node error: Unable to contact slurm controller' >&2\nexit 1\n")
	var log testio.LockedBuffer
	l := &Srun{Alloc: Allocation{JobID: "1"}, Tools: f.tools, Log: NewLineWriter(&log), resolver: offlineResolver()}
	addrs, err := l.addresses(context.Background(), []Target{{Host: "localhost"}, {Rank: 1, Host: "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if addrs[1] != "127.0.0.1" || (addrs[0] != "127.0.0.1" && addrs[0] != "::1") {
		t.Errorf("addresses = %q, want loopback for both", addrs)
	}
	if !strings.Contains(log.String(), "Unable to contact slurm controller") {
		t.Errorf("scontrol's failure was not noted:\n%s", log.String())
	}
	_, err = l.addresses(context.Background(), []Target{{Rank: 3, Host: "no-such-node.invalid"}})
	var herrs HostErrors
	if !errors.As(err, &herrs) || herrs[0].Host != "no-such-node.invalid" || herrs[0].Rank != 3 {
		t.Errorf("addresses of an unknown node = %v, want a HostError naming it", err)
	}
}
