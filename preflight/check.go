package preflight

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"ioswarm/launcher"
	"ioswarm/nodefacts"
)

// Options says which nodes to check and how.
type Options struct {
	Launcher launcher.Launcher
	Targets  []launcher.Target
	Dir      string        // the benchmark directory, unless a target names its own
	Samples  int           // clock round trips per node where the launcher can stream
	Fanout   int           // nodes probed at once
	Timeout  time.Duration // per node, for the probe after the connection
}

// Result is one node's line in the preflight table. OK is false when any
// problem was found; notes are worth knowing but do not fail the node.
type Result struct {
	Host     string   `json:"host"`
	Rank     int      `json:"rank"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	Report   *Report  `json:"report,omitempty"`
	Clock    *Offset  `json:"clock,omitempty"`
	// Shared says whether the node sees the marker another node made in
	// --dir (nil: not tested, as with one node).
	Shared *bool `json:"shared,omitempty"`
}

// streamer is a launcher that can connect to a command's input and output
// (the SSH launcher); through it the clocks are compared over many short
// round trips instead of one long one.
type streamer interface {
	Stream(ctx context.Context, t launcher.Target, args []string) (*launcher.Stream, error)
}

// ProbeArgs is the command line, after the binary, that runs Serve on a
// node; cmd_hosts.go defines the command under these names.
func ProbeArgs(dir string) []string { return []string{"hosts", "probe", "--dir", dir} }

// Check readies every target through the launcher, probes each that got
// ready, and returns one result per target, in order. Only a failure that
// concerns every node at once (such as a binary that cannot travel) is
// returned as an error.
func Check(ctx context.Context, o Options) ([]Result, error) {
	results := make([]Result, len(o.Targets))
	_, err := o.Launcher.Prepare(ctx, o.Targets)
	var herrs launcher.HostErrors
	if err != nil && !errors.As(err, &herrs) {
		return nil, err
	}
	// By rank, once: a search per target was quadratic, 100k nodes that
	// all failed kept this loop (deaf to Ctrl-C) busy for minutes.
	failed := make(map[int]*launcher.HostError, len(herrs))
	for _, he := range herrs {
		failed[he.Rank] = he
	}
	sem := make(chan struct{}, max(o.Fanout, 1))
	var wg sync.WaitGroup
	for i, t := range o.Targets {
		results[i] = Result{Host: t.Host, Rank: t.Rank}
		if he := failed[t.Rank]; he != nil {
			results[i].Problems = []string{he.Err.Error()}
			continue
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return // Check returns the context's cause, not results
			}
			defer func() { <-sem }()
			results[i] = checkOne(ctx, o, t)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	sameFilesystem(results)
	testShared(ctx, o, results)
	return results, nil
}

// sameFilesystem fails the nodes whose --dir is on another filesystem
// than most nodes': a client whose mount is missing would otherwise
// benchmark its local disk under the empty mount point.
func sameFilesystem(results []Result) {
	var keys []string
	var idx []int
	for i, r := range results {
		if r.Report != nil && r.Report.Facts != nil {
			keys = append(keys, r.Report.Facts.FSKey())
			idx = append(idx, i)
		}
	}
	common, odd := nodefacts.OddFilesystems(keys)
	if len(odd) == 0 {
		return
	}
	var want *nodefacts.Facts
	for k, i := range idx {
		if keys[k] == common {
			want = results[i].Report.Facts
			break
		}
	}
	for _, k := range odd {
		r := &results[idx[k]]
		f := r.Report.Facts
		r.Problems = append(r.Problems, fmt.Sprintf("--dir is on %s at %s, most nodes' on %s at %s: every node must measure the same filesystem (is a mount missing?)",
			f.Describe(), f.MountPoint, want.Describe(), want.MountPoint))
		r.OK = false
	}
}

func checkOne(ctx context.Context, o Options, t launcher.Target) Result {
	res := Result{Host: t.Host, Rank: t.Rank}
	dir := o.Dir
	if t.Dir != "" {
		dir = t.Dir
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rep Report
	var samples []sample
	var err error
	if s, ok := o.Launcher.(streamer); ok {
		rep, samples, err = probeStream(ctx, s, t, dir, max(o.Samples, 1))
	} else {
		rep, samples, err = probeExec(ctx, o.Launcher, t, dir)
	}
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
		return res
	}
	res.Report = &rep
	if off, ok := estimate(samples); ok {
		res.Clock = &off
	}
	if o.Launcher.Name() == "local" {
		// The same machine: the clocks are one, and a measured offset
		// would only show how long a process takes to start.
		res.Clock = &Offset{}
	}
	res.judge()
	return res
}

// judge turns the report into problems (the node cannot run a benchmark
// as asked) and notes.
func (r *Result) judge() {
	rep := r.Report
	switch {
	case rep.DirError != "":
		r.Problems = append(r.Problems, "directory: "+rep.DirError)
	case !rep.Writable:
		r.Problems = append(r.Problems, "directory not writable: "+rep.WriteErr)
	}
	if rep.NoUring != "" {
		r.Notes = append(r.Notes, "--engine io_uring cannot run here: "+rep.NoUring)
	}
	if !rep.CanDrop {
		r.Notes = append(r.Notes, "the page cache cannot be dropped (needs root): runs fall back to posix_fadvise")
	}
	if f := rep.Facts; f != nil && f.FreePageReporting {
		r.Notes = append(r.Notes, "hands freed memory back to its hypervisor (virtio-balloon free page reporting): "+
			"buffered figures here also depend on when memory was last freed before a phase (README, Virtual machines)")
	}
	if c := r.Clock; c != nil && abs(c.WallNS) > int64(100*time.Millisecond) {
		r.Notes = append(r.Notes, fmt.Sprintf("the wall clock is %s off (ioswarm times with each node's monotonic clock, so its figures do not depend on it)",
			time.Duration(c.WallNS)))
	}
	r.OK = len(r.Problems) == 0
}

// probeStream runs the probe with its input and output connected: first
// the report, then n clock round trips.
func probeStream(ctx context.Context, s streamer, t launcher.Target, dir string, n int) (Report, []sample, error) {
	st, err := s.Stream(ctx, t, ProbeArgs(dir))
	if err != nil {
		return Report{}, nil, err
	}
	br := bufio.NewReader(st.Out)
	first, err := br.ReadString('\n')
	if err != nil {
		return Report{}, nil, errors.Join(fmt.Errorf("probe gave no report: %w", err), st.Close())
	}
	var a answer
	if err := json.Unmarshal([]byte(first), &a); err != nil {
		return Report{}, nil, errors.Join(fmt.Errorf("probe report %q: %w", strings.TrimSpace(first), err), st.Close())
	}
	samples := make([]sample, 0, n)
	for range n {
		sent := now()
		if _, err := io.WriteString(st.In, "\n"); err != nil {
			break
		}
		line, err := br.ReadString('\n')
		got := now()
		if err != nil {
			break
		}
		node, err := parseReading(line)
		if err != nil {
			return a.Report, nil, errors.Join(err, st.Close())
		}
		samples = append(samples, sample{sent: sent, got: got, node: node})
	}
	if err := st.Close(); err != nil {
		return a.Report, nil, err
	}
	return a.Report, samples, nil
}

// probeExec runs the probe once; the whole run's time bounds the clock
// comparison, which is therefore coarse (milliseconds).
func probeExec(ctx context.Context, l launcher.Launcher, t launcher.Target, dir string) (Report, []sample, error) {
	sent := now()
	out, err := l.Exec(ctx, t, ProbeArgs(dir))
	got := now()
	if err != nil {
		return Report{}, nil, err
	}
	var a answer
	if err := json.Unmarshal(out, &a); err != nil {
		return Report{}, nil, fmt.Errorf("probe report %q: %w", strings.TrimSpace(string(out)), err)
	}
	return a.Report, []sample{{sent: sent, got: got, node: a.Clock}}, nil
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
