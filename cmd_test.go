package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/internal/usage"
	"ioswarm/iozone"
	"ioswarm/result"
)

// newRunOptions is run's options at their flag defaults, as the CLI
// would fill them, with output captured.
func newRunOptions(t *testing.T) (runOptions, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ro, err := parseRunFlags([]string{"--dir", t.TempDir(), "--progress", "off"})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	ro.stdout, ro.stderr = &stdout, &stderr
	return ro, &stdout, &stderr
}

// Every refusal of runRun is a usage error naming what to fix, found
// before a rank would start.
func TestRunRefusesBadOptions(t *testing.T) {
	cases := []struct {
		name string
		set  func(o *runOptions)
		want string
	}{
		{"stray argument", func(o *runOptions) { o.args = []string{"4"} }, `unexpected argument "4"`},
		{"format", func(o *runOptions) { o.Format = "xml" }, `--format "xml": must be table, json or csv`},
		{"details", func(o *runOptions) { o.Details = "disks" }, `--details "disks"`},
		{"empty hosts", func(o *runOptions) { o.Hosts, o.HostsGiven = "", true }, "--hosts is empty"},
		{"relative remote bin", func(o *runOptions) { o.RemoteBin = "bin/ioswarm" }, "--remote-bin"},
		{"listen without port", func(o *runOptions) { o.Listen = "10.0.0.1" }, "--listen"},
		{"launcher", func(o *runOptions) { o.Launcher = "pdsh" }, `--launcher "pdsh"`},
		{"fsync both ways", func(o *runOptions) { o.NoFsync, o.given["fsync"] = true, true }, "--fsync and --no-fsync"},
		{"both sync modes", func(o *runOptions) { o.OSync, o.ODSync = true, true }, "--o-sync and --o-dsync both given"},
		{"size", func(o *runOptions) { o.Total = "12Q" }, `--total "12Q"`},
		{"threads", func(o *runOptions) { o.Threads = 0 }, "--threads 0"},
		{"local ranks", func(o *runOptions) { o.LocalRanks = 0 }, "--local-ranks 0"},
		{"heartbeat", func(o *runOptions) { o.HeartbeatTimeout = 0 }, "--heartbeat-timeout"},
		{"progress", func(o *runOptions) { o.Progress = "loud" }, `--progress "loud"`},
		{"output dir missing", func(o *runOptions) { o.Output = "/nonexistent/r.json" }, "--output /nonexistent/r.json: cannot be created"},
		// The enumerated settings, each refused by its one parse.
		{"phases", func(o *runOptions) { o.Phases = "write,scan" }, `--phases: unknown phase "scan"`},
		{"engine", func(o *runOptions) { o.Engine = "aio" }, `--engine "aio": must be sync or io_uring`},
		{"drop caches", func(o *runOptions) { o.DropCaches = "yes" }, `--drop-caches "yes": must be auto, on or off`},
		{"layout", func(o *runOptions) { o.Layout = "n-1" }, `--layout "n-1": must be per-thread or shared`},
		{"pattern", func(o *runOptions) { o.Pattern = "round" }, `--pattern "round": must be segmented or strided`},
		{"rand scope", func(o *runOptions) { o.RandScope = "all" }, `--rand-scope "all": must be segment or file`},
		{"rand order", func(o *runOptions) { o.RandOrder = "random" }, `--rand-order "random": must be shuffle or uniform`},
		{"rand call", func(o *runOptions) { o.RandCall = "mmap" }, `--rand-call "mmap": must be pread or lseek`},
		{"rand call on io_uring", func(o *runOptions) { o.RandCall, o.Engine = "lseek", "io_uring" }, "--rand-call lseek needs --engine sync"},
		{"md dir", func(o *runOptions) { o.MDDir = "flat" }, `--md-dir "flat": must be per-thread or shared`},
		{"reuse dir", func(o *runOptions) { o.Reuse = "/scratch/job1" }, "--reuse /scratch/job1: not a job directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, stdout, _ := newRunOptions(t)
			c.set(&o)
			err := runRun(context.Background(), o)
			if !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a usage error with %q", err, c.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("printed %q", stdout)
			}
			if exitCode(err, nil) != exitUsage {
				t.Errorf("exit code %d", exitCode(err, nil))
			}
		})
	}
}

func TestWorkloadFromFlags(t *testing.T) {
	o, _, _ := newRunOptions(t)
	o.Total, o.Block, o.Phases, o.NoFsync, o.ReadShift, o.MDSize = "64MiB", "1MiB", " write, randread ,", true, "2", "3901"
	w, err := o.workload(o.given, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if w.Total != 64<<20 || w.Block != 1<<20 || w.RandBlock != 4<<10 || w.Fsync || w.ReadShift != 2 || w.MDSize != 3901 ||
		w.Threads != 8 || w.Phases.Join("|") != "write|randread" {
		t.Errorf("workload %+v", w)
	}
	o.Total, o.FileSize = "", ""
	if w, _ := o.workload(o.given, 1, 1); w.Total != 1<<30 {
		t.Errorf("default total %d, want 1GiB", w.Total)
	}
	o.Total = "auto"
	if w, _ := o.workload(o.given, 1, 1); !w.TotalAuto || w.Total != 0 {
		t.Errorf("--total auto: %+v", w)
	}
	// --reuse's directory form names the job and the directory both.
	o.Reuse = "/scratch/bench/ioswarm-0123456789ab"
	if w, err := o.workload(o.given, 1, 1); err != nil || w.Reuse != "0123456789ab" || w.Dir != "/scratch/bench" {
		t.Errorf("--reuse %s: reuse %q dir %q, %v", o.Reuse, w.Reuse, w.Dir, err)
	}
}

func TestSweepRefusesBadOptions(t *testing.T) {
	for _, c := range []struct {
		set  func(o *sweepOptions)
		want string
	}{
		{func(o *sweepOptions) { o.Threads = "16..1" }, "--threads"},
		{func(o *sweepOptions) { o.Total = "auto" }, "--total auto: not for sweeps"},
		{func(o *sweepOptions) { o.ChartSize = "big" }, "--chart-size"},
		{func(o *sweepOptions) { o.Total, o.Threads = "64MiB", "1,2,32" }, "sweep point of 32 threads"},
		{func(o *sweepOptions) { o.Chart = "/nonexistent/c" }, "--chart /nonexistent/c.svg"},
		{func(o *sweepOptions) { o.Retries = -1 }, "--retries -1"},
	} {
		o := sweepOptions{Threads: "1,2", IODepths: "1", chartOptions: chartOptions{ChartSize: "1000x700"}}
		o.ioOptions = defaultIO(t)
		o.reportOptions = reportOptions{Format: "table", Progress: "off", ProgressInterval: time.Second}
		o.Launcher = "local"
		var stdout, stderr bytes.Buffer
		o.stdout, o.stderr = &stdout, &stderr
		c.set(&o)
		err := runSweep(context.Background(), o)
		if !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want a usage error with %q", err, c.want)
		}
	}
}

func defaultIO(t *testing.T) ioOptions {
	ro, _, _ := newRunOptions(t)
	return ro.ioOptions
}

// An existing --output is said to be replaced, and is not touched until
// results exist; a new one is not created by the check.
func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "new.json")
	var stderr bytes.Buffer
	err := checkOutputs(&stderr, outputPath{"output", old, true}, outputPath{"csv", fresh, false})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(old); string(data) != "kept" {
		t.Errorf("the check changed the existing file: %q", data)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the check left %s behind", fresh)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, old) {
		t.Errorf("stderr %q, want one line naming %s", got, old)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("scratch files left: %v", left)
	}
	if err := checkOutputs(&stderr, outputPath{"output", dir, true}); !usage.Is(err) {
		t.Errorf("a directory as --output: %v", err)
	}
}

func TestCompareAndPlotTakeArguments(t *testing.T) {
	a, b := filepath.Join("study", "testdata", "gen1.json"), filepath.Join("study", "testdata", "gen2.json")
	var out bytes.Buffer
	if err := runCompare(compareOptions{NoChart: true, invocation: invocation{args: []string{a, b}, stdout: &out}, chartOptions: chartOptions{ChartSize: "1000x700"}}); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		t.Error("compare printed nothing")
	}
	err := runCompare(compareOptions{invocation: invocation{args: []string{a}, stdout: &out}})
	if !usage.Is(err) || !strings.Contains(err.Error(), "name two result files") {
		t.Errorf("one file: %v", err)
	}
	err = runPlot(plotOptions{invocation: invocation{args: []string{"/nonexistent/r.json"}, stdout: &out}, chartOptions: chartOptions{ChartSize: "1000x700"}})
	if !usage.Is(err) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want a usage error that still wraps ErrNotExist", err)
	}
}

func TestReadLaunch(t *testing.T) {
	secret := strings.Repeat("ab", 32)
	in, rest, err := readLaunch(strings.NewReader(secret + "\n127.0.0.1:7000\nmore"))
	if err != nil || len(in.secret) != 32 || in.addr != "127.0.0.1:7000" {
		t.Fatalf("got %+v, %v", in, err)
	}
	var tail bytes.Buffer
	if _, err := tail.ReadFrom(rest); err != nil || tail.String() != "more" {
		t.Errorf("rest %q, %v", tail.String(), err)
	}
	for _, bad := range []string{"", "zz\n1.2.3.4:5\n", "abab\n1.2.3.4:5\n", secret + "\n", secret + "\nnoport\n"} {
		if _, _, err := readLaunch(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestExitCode(t *testing.T) {
	u := usage.Errorf("--threads 0: must be at least 1")
	for _, c := range []struct {
		err  error
		sig  os.Signal
		want int
	}{
		{nil, nil, exitOK},
		{errors.New("rank 3 died"), nil, exitFailed},
		{u, nil, exitUsage},
		{errors.Join(errors.New("sweep point of 4 threads"), u), nil, exitUsage},
		{errors.New("interrupted by SIGINT"), syscall.SIGINT, exitInterrupt},
		{u, syscall.SIGTERM, exitTerm},
		{errors.New("x"), syscall.SIGHUP, exitHangup},
		{silentError{errors.New("preflight failed")}, nil, exitFailed},
	} {
		if got := exitCode(c.err, c.sig); got != c.want {
			t.Errorf("exitCode(%v, %v) = %d, want %d", c.err, c.sig, got, c.want)
		}
	}
}

// A result file that cannot be written does not stop the CSV row.
func TestSaveJobSavesWhatItCan(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "r.csv")
	job := &result.Job{JobID: "0123456789ab", Phases: []result.Phase{{Name: "write", Iteration: 1}}}
	err := saveJob(job, filepath.Join(dir, "gone", "r.json"), csv)
	if err == nil || !strings.Contains(err.Error(), "--output") {
		t.Errorf("error %v, want one naming --output", err)
	}
	if data, err := os.ReadFile(csv); err != nil || !strings.Contains(string(data), "0123456789ab") {
		t.Errorf("CSV %q, %v", data, err)
	}
}

func TestIOzoneFlags(t *testing.T) {
	ours, theirs, err := splitLongFlags([]string{"-i0", "--format", "json", "-t", "4", "--keep", "--dir=/x", "-s", "1m"})
	if err != nil || strings.Join(ours, " ") != "--format json --keep --dir=/x" || strings.Join(theirs, " ") != "-i0 -t 4 -s 1m" {
		t.Errorf("ours %q theirs %q, %v", ours, theirs, err)
	}
	var out bytes.Buffer
	for args, want := range map[string]string{
		"-i0 -t 2 -s 1m -r 64k --formt json":  "iozone: unknown flag --formt: did you mean --format?",
		"-i0 -t 2 -s 1m -r 64k --format xml":  `--format "xml"`,
		"-i0 -t 2 -s 1m -r 64k --threads two": `--threads "two": not a whole number`,
	} {
		err := runIOzone(context.Background(), iozoneOptions{invocation{args: strings.Fields(args), stdout: &out, stderr: &out}})
		if !usage.Is(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error with %q", args, err, want)
		}
	}
	// -+h and --listen both say where ranks dial the coordinator.
	clients := filepath.Join(t.TempDir(), "clients")
	if err := os.WriteFile(clients, []byte("node1 /data /usr/bin/iozone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-i0", "-t", "1", "-s", "1m", "-r", "64k", "-+m", clients, "-+h", "10.0.0.1", "--listen", "10.0.0.2:7000"}
	err = runIOzone(context.Background(), iozoneOptions{invocation{args: args, stdout: &out, stderr: &out}})
	if want := "-+h 10.0.0.1 and --listen 10.0.0.2:7000 both say"; !usage.Is(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("-+h with --listen: %v, want a usage error with %q", err, want)
	}
}

// The equivalent run of an -i2 line makes IOzone's calls, unless the
// line chose them itself or chose the io_uring engine, where they do not
// apply (and would be refused, naming a flag the user never gave).
func TestIOzoneRandomCalls(t *testing.T) {
	cmd, err := iozone.Parse(strings.Fields("-i0 -i2 -r 4k -s 1m -t 2 -+n -x"))
	if err != nil {
		t.Fatal(err)
	}
	for ours, want := range map[string]string{
		"":                              "--rand-call lseek",
		"--engine sync":                 "--rand-call lseek",
		"--engine io_uring":             "",
		"--engine=io_uring --iodepth 4": "",
		"--rand-call pread":             "--rand-call pread",
	} {
		args, err := iozoneRunArgs(cmd, 2, strings.Fields(ours))
		if err != nil {
			t.Fatalf("%q: %v", ours, err)
		}
		line := " " + strings.Join(args, " ") + " "
		if n := strings.Count(line, "--rand-call"); want == "" && n != 0 || want != "" && (n != 1 || !strings.Contains(line, " "+want+" ")) {
			t.Errorf("with %q: run %s; want %q once", ours, line, want)
		}
	}
}

// writeImage writes a stand-in for the binary a copy server sends.
func writeImage(t *testing.T) (string, []byte) {
	t.Helper()
	image := filepath.Join(t.TempDir(), "image")
	data := []byte(strings.Repeat("build", 1000))
	if err := os.WriteFile(image, data, 0o700); err != nil {
		t.Fatal(err)
	}
	return image, data
}

// fetchImage fetches from the copy server at addr with token and wants
// data.
func fetchImage(t *testing.T, addr, token string, data []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(c, token+"\n")
	got, _ := io.ReadAll(c)
	c.Close()
	if !bytes.Equal(got, data) {
		t.Errorf("fetched %d bytes, want the image's %d", len(got), len(data))
	}
}

// serve-copy reads its token, says its port, sends its image to whoever
// presents the token, and stops when its input ends.
func TestServeCopyServesUntilInputEnds(t *testing.T) {
	image, data := writeImage(t)
	token := strings.Repeat("ab", 16)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- runServeCopy(context.Background(), inR, outW, image) }()
	if _, err := io.WriteString(inW, token+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "serving ") {
		t.Fatalf("first line %q (%v), want serving PORT", line, err)
	}
	fetchImage(t, "127.0.0.1:"+strings.TrimSpace(strings.TrimPrefix(line, "serving ")), token, data)
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve-copy: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve-copy still runs 10 s after its input ended")
	}
}

// A rank told "serve TOKEN" after its launch lines says its port, sends its
// image to whoever presents the token, stops on "unserve", and returns when
// its input ends.
func TestRankServesItsCopyUntilTold(t *testing.T) {
	image, data := writeImage(t)
	token := strings.Repeat("cd", 16)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		watchInput(context.Background(), inR, outW, io.Discard, image)
		close(done)
	}()
	if _, err := io.WriteString(inW, "something else\nserve "+token+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "serving ") || line == "serving 0\n" {
		t.Fatalf("answer %q (%v), want serving PORT", line, err)
	}
	addr := "127.0.0.1:" + strings.TrimSpace(strings.TrimPrefix(line, "serving "))
	fetchImage(t, addr, token, data)
	if _, err := io.WriteString(inW, "unserve\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // no longer listening
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still serving 10 s after unserve")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("the watch ended before the input did")
	default:
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch still runs 10 s after the input ended")
	}
}
