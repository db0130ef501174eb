package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/progress"
	"ioswarm/units"
)

// ioFlags shape the workload; shared by run and sweep.
func ioFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory on the filesystem under test; files go in <dir>/ioswarm-<jobid>/"},
		&cli.IntFlag{Name: "threads", Value: 4, Usage: "threads (one file each), placed round-robin over ranks/hosts"},
		&cli.StringFlag{Name: "total", Usage: "aggregate size, divided among the threads (default 1GiB unless --file-size); auto = twice what the clients' and servers' caches hold (the seed's rule)"},
		&cli.StringFlag{Name: "file-size", Usage: "size of each thread's file (instead of --total)"},
		&cli.StringFlag{Name: "block", Value: "16MiB", Usage: "record size of sequential phases"},
		&cli.StringFlag{Name: "rand-block", Value: "4KiB", Usage: "operation size of random phases"},
		&cli.StringFlag{Name: "phases", Value: "write,read", Usage: "comma list of write, rewrite, read, reread, randwrite, randread, and the metadata phases mdcreate, mdstat, mdread, mddelete"},
		&cli.StringFlag{Name: "layout", Value: "per-thread", Usage: "per-thread (a file per thread, N-N) or shared (one file for all threads, N-1)"},
		&cli.StringFlag{Name: "pattern", Value: "segmented", Usage: "with --layout shared: segmented (thread i writes [i·S, (i+1)·S)) or strided (record j of thread i at (j·threads + i)·block)"},
		&cli.StringFlag{Name: "rand-scope", Value: "segment", Usage: "with --layout shared: random phases draw offsets in the thread's own part (segment) or anywhere in the file (file)"},
		&cli.IntFlag{Name: "files-per-thread", Value: 1000, Usage: "metadata phases: files each thread creates, stats, reads and deletes"},
		&cli.StringFlag{Name: "md-dir", Value: "per-thread", Usage: "metadata phases: a directory per thread (mdtest easy) or one shared by all threads (shared)"},
		&cli.StringFlag{Name: "md-size", Value: "0", Usage: "metadata phases: bytes written into each file at create and read back by mdread (IO500 hard: 3901)"},
		&cli.BoolFlag{Name: "fsync", Value: true, Usage: "fsync each file before close, inside the timing (IOzone -e); --fsync=false or --no-fsync to skip"},
		&cli.BoolFlag{Name: "no-fsync", Usage: "do not fsync before close"},
		&cli.BoolFlag{Name: "direct", Usage: "O_DIRECT for every phase"},
		&cli.StringFlag{Name: "engine", Value: "sync", Usage: "sync (pread/pwrite, one operation in flight per thread, as IOzone) or io_uring (up to --iodepth in flight per thread)"},
		&cli.IntFlag{Name: "iodepth", Value: 1, Usage: "operations in flight per thread with --engine io_uring"},
		&cli.BoolFlag{Name: "verify", Usage: "check the data pattern in read phases (timed)"},
		&cli.StringFlag{Name: "drop-caches", Value: "auto", Usage: "auto, on or off: drop page caches on every node before each phase"},
		&cli.BoolFlag{Name: "keep", Usage: "keep the files afterwards (IOzone -w)"},
		&cli.StringFlag{Name: "read-shift", Value: "auto", Usage: "read phases read the files written N nodes further along (IOR -Q), so no node reads what its own cache holds; auto = 1 on two nodes or more, 0 on one"},
		&cli.StringFlag{Name: "server-cache", Usage: "what the storage servers can cache in all (e.g. 384GiB); counted by the cache check and --total auto"},
		&cli.StringFlag{Name: "reuse", Usage: "read the files a --keep run left instead of writing new ones: its job id, its ioswarm-<id> directory, or latest (the newest under --dir); only read phases; checked against that run's manifest"},
		&cli.BoolFlag{Name: "allow-mixed-fs", Usage: "run even when the nodes' --dir are on different filesystems"},
		&cli.IntFlag{Name: "iterations", Value: 1, Usage: "run every phase this many times"},
		&cli.DurationFlag{Name: "stonewall", Usage: "stop timing a phase after this long (writers finish their files untimed)"},
		&cli.DurationFlag{Name: "rand-time", Value: 2 * time.Minute, Usage: "random phases stop after this long (IOzone does file size / record operations, which over a large aggregate takes hours); 0 runs every operation"},
		&cli.IntFlag{Name: "local-ranks", Value: 1, Usage: "rank processes on this machine when no hosts are given"},
		&cli.DurationFlag{Name: "heartbeat-timeout", Value: 5 * time.Second, Usage: "a rank or coordinator silent this long fails the job"},
	}
}

// reportFlags shape the output; shared by run and sweep.
func reportFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Value: "table", Usage: "what to print: table, json or csv"},
		&cli.StringFlag{Name: "details", Usage: "more table blocks: phases (sizes, window, latency spread, skew, cache), nodes (each node's share), threads (every record), or all; comma list"},
		&cli.StringFlag{Name: "output", Usage: "write the full JSON result to this file"},
		&cli.StringFlag{Name: "label", Usage: "a name for this system in comparisons"},
		&cli.BoolFlag{Name: "quiet", Usage: "no progress or rank log lines"},
		&cli.StringFlag{Name: "csv", Usage: "append one row per phase to this CSV file (a sweep: per point); the header is written only when the file is new or empty"},
		&cli.StringFlag{Name: "progress", Value: "auto", Usage: "live progress on stderr: tty (one line redrawn per phase), plain (a line every --progress-interval), off, or auto (tty on a terminal, else plain)"},
		&cli.DurationFlag{Name: "progress-interval", Value: 10 * time.Second, Usage: "time between plain progress lines"},
	}
}

// optionsFrom turns flags into coordinator options, naming the flag and
// value of anything that does not parse.
func optionsFrom(c *cli.Context) (coordinator.Launch, coordinator.Workload, error) {
	la := coordinator.Launch{LocalRanks: c.Int("local-ranks"), HeartbeatTimeout: c.Duration("heartbeat-timeout"), Listen: c.String("listen")}
	o := coordinator.Workload{
		Dir: c.String("dir"), Threads: c.Int("threads"), Fsync: c.Bool("fsync"),
		Direct: c.Bool("direct"), Verify: c.Bool("verify"), Keep: c.Bool("keep"),
		DropCaches: c.String("drop-caches"), Iterations: c.Int("iterations"),
		Stonewall: c.Duration("stonewall"), RandTime: c.Duration("rand-time"), Version: fullVersion(),
		CommandLine: strings.Join(os.Args, " "), Label: c.String("label"),
	}
	if c.Bool("no-fsync") {
		if c.IsSet("fsync") && c.Bool("fsync") {
			return la, o, usage.Errorf("--fsync and --no-fsync both given: use one")
		}
		o.Fsync = false
	}
	for _, p := range strings.Split(c.String("phases"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.Phases = append(o.Phases, p)
		}
	}
	o.AllowMixedFS = c.Bool("allow-mixed-fs")
	o.Reuse = c.String("reuse")
	o.Engine, o.IODepth = c.String("engine"), c.Int("iodepth")
	o.Layout, o.Pattern, o.RandScope = c.String("layout"), c.String("pattern"), c.String("rand-scope")
	o.FilesPerThread, o.MDDir = c.Int("files-per-thread"), c.String("md-dir")
	if v := c.String("md-size"); v != "" && v != "0" {
		n, err := units.ParseSize(v)
		if err != nil {
			return la, o, flagError("md-size", v, err)
		}
		o.MDSize = n
	}
	shift, err := parseReadShift(c.String("read-shift"))
	if err != nil {
		return la, o, err
	}
	o.ReadShift = shift
	o.TotalAuto = c.String("total") == "auto"
	sizes := []struct {
		flag string
		dst  *int64
	}{{"total", &o.Total}, {"file-size", &o.FileSize}, {"block", &o.Block}, {"rand-block", &o.RandBlock},
		{"server-cache", &o.ServerCache}}
	for _, s := range sizes {
		v := c.String(s.flag)
		if v == "" || (s.flag == "total" && o.TotalAuto) {
			continue
		}
		n, err := units.ParseSize(v)
		if err != nil {
			return la, o, flagError(s.flag, v, err)
		}
		if n <= 0 && !(n == 0 && s.flag == "server-cache") {
			return la, o, flagError(s.flag, v, fmt.Errorf("must be positive"))
		}
		*s.dst = n
	}
	if c.String("total") == "" && c.String("file-size") == "" {
		o.Total = 1 << 30
	}
	log := launcher.NewLineWriter(os.Stderr)
	if c.Bool("quiet") {
		log = launcher.NewLineWriter(io.Discard)
	}
	rep, err := progressFrom(c)
	if err != nil {
		return la, o, err
	}
	if rep != nil {
		// Log lines go through the reporter so they never run into a
		// progress line drawn on the terminal.
		o.Progress, log = rep, launcher.NewLineWriter(rep.Writer(os.Stderr))
	}
	la.Log = log
	l, targets, err := launchFrom(c, log)
	if err != nil {
		return la, o, err
	}
	la.Launcher, la.Targets = l, targets
	if n, source := iozoneClients(c); n > 0 && !c.IsSet("threads") && (c.Command.Name == "run" || c.Command.Name == "iozone") {
		// IOzone runs a child per line of its client file: so do we,
		// unless --threads says otherwise.
		o.Threads = n
		o.ThreadsFrom = fmt.Sprintf("one per line of %s", source)
	}
	return la, o, nil
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

// progressFrom builds the live progress reporter on stderr, or nil when
// it is off; --quiet silences it whatever --progress says.
func progressFrom(c *cli.Context) (*progress.Reporter, error) {
	if !c.IsSet("progress") && c.String("progress") == "" {
		return nil, nil // a command without the progress flags
	}
	mode, err := progress.ParseMode(c.String("progress"))
	if err != nil {
		return nil, flagError("progress", c.String("progress"), err)
	}
	interval := c.Duration("progress-interval")
	if interval <= 0 {
		return nil, flagError("progress-interval", interval.String(), fmt.Errorf("must be positive"))
	}
	if c.Bool("quiet") {
		return nil, nil
	}
	return progress.New(os.Stderr, mode, interval), nil
}
