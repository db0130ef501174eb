package preflight

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"ioswarm/nodefacts"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/launcher"
)

func TestEstimateTakesShortestRoundTrip(t *testing.T) {
	// The node's clocks run 5 ms (monotonic) and 2 ms (wall) ahead.
	mk := func(sent, rtt, nodeDelay int64) sample {
		at := sent + nodeDelay
		return sample{sent: reading{sent, sent + 1e9}, got: reading{sent + rtt, sent + rtt + 1e9},
			node: reading{at + 5e6, at + 1e9 + 2e6}}
	}
	off, ok := estimate([]sample{mk(0, 900e3, 800e3), mk(2e6, 100e3, 50e3), mk(4e6, 400e3, 10e3)})
	if !ok {
		t.Fatal("no estimate")
	}
	if off.ErrorNS != 50e3 || off.MonoNS != 5e6 || off.WallNS != 2e6 {
		t.Errorf("estimate %+v, want 5 ms and 2 ms within 50 µs exactly", off)
	}
	if _, ok := estimate(nil); ok {
		t.Error("an estimate from no samples")
	}
}

func TestProbeWritesOnlyAJobDirectoryAndRemovesIt(t *testing.T) {
	dir := t.TempDir()
	r := Probe(dir)
	if !r.Writable || r.DirError != "" || r.FSType == "" || r.FreeBytes <= 0 || r.Arch == "" || r.User == "" {
		t.Errorf("probe of a temp dir: %+v", r)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("probe left %v", ents)
	}
	r = Probe(filepath.Join(dir, "missing"))
	if r.DirError == "" || r.Writable {
		t.Errorf("probe of a missing dir: %+v", r)
	}
}

// Serve answers every line with a clock reading until its input ends.
func TestServeReportsThenAnswersPings(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(t.TempDir(), inR, outW); outW.Close() }()
	br := bufio.NewReader(outR)
	first, err := br.ReadString('\n')
	var a answer
	if err != nil || json.Unmarshal([]byte(first), &a) != nil || !a.Writable || a.Clock.Mono == 0 {
		t.Fatalf("first line %q, %v", first, err)
	}
	prev := a.Clock.Mono
	for range 3 {
		io.WriteString(inW, "\n")
		line, err := br.ReadString('\n')
		r, perr := parseReading(line)
		if err != nil || perr != nil || r.Mono < prev {
			t.Fatalf("answer %q: %v %v (previous %d)", line, err, perr, prev)
		}
		prev = r.Mono
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestTableShowsProblemsAndNotes(t *testing.T) {
	results := []Result{
		{Host: "n1", OK: true, Report: &Report{User: "root", Arch: "x86_64", Kernel: "6.1", FSType: "ext4",
			FreeBytes: 40 << 30, Writable: true, CanDrop: true, Facts: &nodefacts.Facts{MemTotal: 24 << 30, CacheBytes: 24 << 30,
				BootID: "k1", FSType: "ext4", FSSource: "/dev/vda1", MountPoint: "/", BlockSize: 4096, MountOptions: "rw;rw"}},
			Clock: &Offset{WallNS: -12000, ErrorNS: 45000}},
		{Host: "n2", Problems: []string{"connect to 10.0.0.2:22: no answer within 3s (--connect-timeout)"}},
		{Host: "n3", OK: true, Report: &Report{User: "u", Arch: "aarch64", Kernel: "5.14", FSType: "gpfs",
			FreeBytes: 1536 << 30, Writable: true, NoUring: "io_uring unavailable: refused (EPERM)"}, Notes: []string{"the page cache cannot be dropped"}},
	}
	var b strings.Builder
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"n1    ok      root  x86_64   6.1     ext4  40.0 GiB  24.0 GiB  yes       yes          yes       -0.012 ms ±0.045 ms",
		"n2    FAILED  -     -        -       -     -         -         -         -            -         -",
		"n3    ok      u     aarch64  5.14    gpfs  1.50 TiB  -         yes       no           no        -",
		"filesystem: ext4 (/dev/vda1) at / (block 4.00 KiB, options rw;rw) on 1 node(s)",
		"memory: the clients can cache 24.0 GiB between them (1 kernel(s))",
		"n2: connect to 10.0.0.2:22: no answer within 3s (--connect-timeout)",
		"n3: note: the page cache cannot be dropped",
		"1 of 3 nodes failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestOddFilesystemFailsItsNode(t *testing.T) {
	gluster := &nodefacts.Facts{FSType: "fuse.glusterfs", FSSource: "s:/gv0", MountPoint: "/mnt/gv0"}
	local := &nodefacts.Facts{FSType: "ext4", FSSource: "/dev/vda1", MountPoint: "/"}
	results := []Result{
		{Host: "n1", OK: true, Report: &Report{Facts: gluster}},
		{Host: "n2", OK: true, Report: &Report{Facts: local}},
		{Host: "n3", OK: true, Report: &Report{Facts: gluster}},
		{Host: "n4", Problems: []string{"unreachable"}},
	}
	sameFilesystem(results)
	if !results[0].OK || !results[2].OK || results[1].OK {
		t.Fatalf("only n2 should fail: %+v", results)
	}
	p := strings.Join(results[1].Problems, "; ")
	for _, want := range []string{"ext4 (/dev/vda1) at /", "fuse.glusterfs (s:/gv0) at /mnt/gv0", "same filesystem"} {
		if !strings.Contains(p, want) {
			t.Errorf("problem %q lacks %q", p, want)
		}
	}
}

// fakeLauncher readies every target but one and runs the probe in this
// process.
type fakeLauncher struct{ fail int }

func (f *fakeLauncher) Name() string { return "fake" }
func (f *fakeLauncher) Prepare(ctx context.Context, ts []launcher.Target) ([]string, error) {
	return nil, launcher.HostErrors{{Host: ts[f.fail].Host, Rank: f.fail, Err: errors.New("refused")}}
}
func (f *fakeLauncher) Start(context.Context, launcher.Target, []string, []byte) (launcher.Proc, error) {
	return nil, errors.New("not here")
}
func (f *fakeLauncher) Exec(_ context.Context, _ launcher.Target, args []string) ([]byte, error) {
	var out strings.Builder
	err := Serve(args[len(args)-1], strings.NewReader(""), &out)
	return []byte(out.String()), err
}
func (f *fakeLauncher) Close() error { return nil }

func TestCheckKeepsGoingPastAFailedHost(t *testing.T) {
	dir := t.TempDir()
	targets := []launcher.Target{{Rank: 0, Host: "a"}, {Rank: 1, Host: "b"}, {Rank: 2, Host: "c", Dir: "/no/such/dir"}}
	res, err := Check(context.Background(), Options{Launcher: &fakeLauncher{fail: 1}, Targets: targets, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].OK || res[0].Report == nil || res[0].Clock == nil || res[0].Report.Dir != dir {
		t.Errorf("a: %+v", res[0])
	}
	if res[1].OK || len(res[1].Problems) != 1 || res[1].Problems[0] != "refused" {
		t.Errorf("b: %+v", res[1])
	}
	if res[2].OK || !strings.Contains(strings.Join(res[2].Problems, ";"), "/no/such/dir") {
		t.Errorf("c (its own dir): %+v", res[2])
	}
}

// A node that hands freed memory back to its hypervisor gets a note, a
// node that does not none; neither is a problem.
func TestJudgeNotesFreePageReporting(t *testing.T) {
	for _, reports := range []bool{true, false} {
		r := Result{Host: "n1", Report: &Report{Writable: true, CanDrop: true, Facts: &nodefacts.Facts{FreePageReporting: reports}}}
		r.judge()
		noted := false
		for _, n := range r.Notes {
			noted = noted || strings.Contains(n, "free page reporting")
		}
		if noted != reports || !r.OK {
			t.Errorf("free page reporting %v: notes %q, ok %v", reports, r.Notes, r.OK)
		}
	}
}
