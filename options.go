package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/progress"
	"ioswarm/settings"
	"ioswarm/units"
)

// flagError names the flag and its value.
func flagError(flag, value string, err error) error {
	return usage.Errorf("--%s %q: %w", flag, value, err)
}

// noArgs refuses positional arguments to a command that takes none.
func noArgs(cmd string, args []string) error {
	if len(args) > 0 {
		return usage.Errorf("%s: unexpected argument %q (flags start with --)", cmd, args[0])
	}
	return nil
}

// checkFormat checks --format against the formats a command prints.
func checkFormat(format string, allowed ...string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	return usage.Errorf("--format %q: must be %s or %s", format,
		strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1])
}

// workload turns the I/O flags into a workload of threads threads at
// queue depth depth, naming the flag and value of anything that does not
// parse. What needs the whole workload is checked by its Validate.
func (o *ioOptions) workload(g given, threads, depth int) (coordinator.Workload, error) {
	w := coordinator.Workload{Dir: o.Dir, Version: fullVersion(), ReuseWrites: o.Reuse != "",
		Job: settings.Job{
			Threads: threads, IODepth: depth, Fsync: o.Fsync, Direct: o.Direct, OSync: o.OSync, ODSync: o.ODSync, Verify: o.Verify, Keep: o.Keep,
			Iterations: o.Iterations, Stonewall: o.Stonewall, RandTime: o.RandTime,
			AllowMixedFS: o.AllowMixedFS, FirstDoneStop: o.FirstDoneStop, FilesPerThread: o.FilesPerThread,
			IgnoreSpace: o.IgnoreSpace, IgnoreMemory: o.IgnoreMemory,
		}}
	if o.NoFsync {
		if g["fsync"] && o.Fsync {
			return w, usage.Errorf("--fsync and --no-fsync both given: use one")
		}
		w.Fsync = false
	}
	if o.OSync && o.ODSync {
		return w, usage.Errorf("--o-sync and --o-dsync both given: use one (O_SYNC waits for what O_DSYNC does and the file's timestamps too)")
	}
	if err := o.parseSettings(&w); err != nil {
		return w, err
	}
	shift, err := parseReadShift(o.ReadShift)
	if err != nil {
		return w, err
	}
	w.ReadShift = shift
	return w, o.sizes(&w)
}

// parseSettings parses the enumerated settings' flags into w, each with its
// one parse (package settings), and --reuse, whose directory form sets
// the directory too.
func (o *ioOptions) parseSettings(w *coordinator.Workload) error {
	var errs [10]error
	w.Phases, errs[0] = settings.ParsePhases(o.Phases)
	w.Engine, errs[1] = settings.ParseEngine(o.Engine)
	w.DropCaches, errs[2] = settings.ParseDropMode(o.DropCaches)
	w.Layout, errs[3] = settings.ParseLayout(o.Layout)
	w.Pattern, errs[4] = settings.ParsePattern(o.Pattern)
	w.RandScope, errs[5] = settings.ParseRandScope(o.RandScope)
	w.RandOrder, errs[6] = settings.ParseRandOrder(o.RandOrder)
	w.MDDir, errs[7] = settings.ParseMDDir(o.MDDir)
	w.RandCall, errs[9] = settings.ParseRandCall(o.RandCall)
	if o.Reuse != "" {
		var dir string
		if dir, w.Reuse, errs[8] = coordinator.ParseReuse(o.Reuse); dir != "" {
			w.Dir = dir
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sizes parses the size flags into w.
func (o *ioOptions) sizes(w *coordinator.Workload) error {
	w.TotalAuto = o.Total == "auto"
	sizes := []struct {
		flag, v string
		dst     *int64
	}{{"total", o.Total, &w.Total}, {"file-size", o.FileSize, &w.FileSize}, {"block", o.Block, &w.Block},
		{"rand-block", o.RandBlock, &w.RandBlock}, {"server-cache", o.ServerCache, &w.ServerCache},
		{"md-size", o.MDSize, &w.MDSize}}
	for _, s := range sizes {
		if s.v == "" || (s.flag == "total" && w.TotalAuto) || (s.flag == "md-size" && s.v == "0") {
			continue
		}
		n, err := units.ParseSize(s.v)
		if err != nil {
			return flagError(s.flag, s.v, err)
		}
		if n <= 0 && s.flag != "server-cache" && s.flag != "md-size" {
			return flagError(s.flag, s.v, fmt.Errorf("must be positive"))
		}
		*s.dst = n
	}
	if o.Total == "" && o.FileSize == "" {
		w.Total = 1 << 30
	}
	return nil
}

// parseReadShift reads --read-shift: auto or a whole number of nodes.
func parseReadShift(v string) (int, error) {
	if v == "" || v == "auto" {
		return coordinator.ReadShiftAuto, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, flagError("read-shift", v, fmt.Errorf("must be auto or a number of nodes, 0 or more"))
	}
	return n, nil
}

// reporting is where a job's log lines and live progress go.
type reporting struct {
	log      *launcher.LineWriter
	progress *progress.Reporter // nil: none
}

// reportingFrom builds the log writer and the live progress reporter on
// stderr; --quiet silences both whatever --progress says.
func reportingFrom(o *reportOptions, stderr io.Writer) (reporting, error) {
	mode, err := progress.ParseMode(o.Progress)
	if err != nil {
		return reporting{}, flagError("progress", o.Progress, err)
	}
	if o.ProgressInterval <= 0 {
		return reporting{}, flagError("progress-interval", o.ProgressInterval.String(), fmt.Errorf("must be positive"))
	}
	if o.Quiet {
		return reporting{log: launcher.NewLineWriter(io.Discard)}, nil
	}
	rep := progress.New(stderr, mode, o.ProgressInterval)
	if rep == nil {
		return reporting{log: launcher.NewLineWriter(stderr)}, nil
	}
	// Log lines go through the reporter so they never run into a
	// progress line drawn on the terminal.
	return reporting{log: launcher.NewLineWriter(rep.Writer(stderr)), progress: rep}, nil
}

// jobSpec is what run, sweep and iozone share: the launch, the workload
// (Threads and IODepth still to set per point) and where output goes.
type jobSpec struct {
	launch coordinator.Launch
	work   coordinator.Workload
	rep    reporting
}

// jobFrom reads the flags run, sweep and iozone share.
func jobFrom(iop *ioOptions, ro *reportOptions, lo *launchOptions, g given, threads, depth int, stderr io.Writer) (jobSpec, error) {
	var j jobSpec
	w, err := iop.workload(g, threads, depth)
	if err != nil {
		return j, err
	}
	w.Label = ro.Label
	rep, err := reportingFrom(ro, stderr)
	if err != nil {
		return j, err
	}
	if rep.progress != nil {
		w.Progress = rep.progress
	}
	l, targets, err := launcherFrom(lo, rep.log)
	if err != nil {
		return j, err
	}
	j.launch = coordinator.Launch{Launcher: l, Targets: targets, LocalRanks: iop.LocalRanks, Listen: lo.Listen,
		HeartbeatTimeout: iop.HeartbeatTimeout, Log: rep.log, WrapWarning: wrapLogWarning,
		JoinTimeout: joinFactor * lo.ConnectTimeout, JoinLimit: fmt.Sprintf("%d × --connect-timeout", joinFactor)}
	j.work, j.rep = w, rep
	return j, nil
}
