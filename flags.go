package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/chart"
	"ioswarm/settings"
)

// Flag categories, the groups --help lists flags under.
const (
	catIO     = "I/O"
	catSizes  = "Sizes"
	catLaunch = "Launch"
	catSSH    = "SSH"
	catOutput = "Output"
)

// ioOptions shape the workload: the flags run, sweep and iozone share.
// --threads and --iodepth are not here: run takes a number, sweep a list.
type ioOptions struct {
	Dir, Total, FileSize, Block, RandBlock, Phases string
	Layout, Pattern, RandScope, MDDir, MDSize      string
	RandOrder, RandCall                            string
	FilesPerThread                                 int
	Fsync, NoFsync, Direct, OSync, ODSync, Verify  bool
	Keep                                           bool
	FirstDoneStop                                  bool
	Engine, DropCaches, ReadShift                  string
	ServerCache, Reuse                             string
	AllowMixedFS                                   bool
	IgnoreSpace, IgnoreMemory                      bool
	Iterations, LocalRanks                         int
	Stonewall, RandTime, HeartbeatTimeout          time.Duration
}

// ioFlags binds the workload flags to o. A sweep holds its size flags
// fixed over its points, and says so.
func ioFlags(o *ioOptions, sweep bool) []cli.Flag {
	total := "aggregate size, divided among the threads (default 1GiB unless --file-size); auto = twice what the clients' and servers' caches hold (the seed's rule)"
	fileSize := "size of each thread's file (instead of --total)"
	if sweep {
		total = "aggregate size, the same at every point and divided among its threads (default 1GiB unless --file-size)"
		fileSize = "size of each thread's file, the same at every point (instead of --total: the aggregate grows with the threads)"
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "dir", Value: ".", Destination: &o.Dir, Category: catIO, Usage: "directory on the filesystem under test; files go in <dir>/ioswarm-<jobid>/"},
		&cli.StringFlag{Name: "phases", Value: settings.PhaseList{settings.Write, settings.Read}.String(), Destination: &o.Phases, Category: catIO, Usage: "comma list of write, rewrite, read, reread, randwrite, randread, and the metadata phases mdcreate, mdstat, mdread, mddelete"},
		&cli.StringFlag{Name: "layout", Value: settings.PerThread.String(), Destination: &o.Layout, Category: catIO, Usage: "per-thread (a file per thread, N-N) or shared (one file for all threads, N-1)"},
		&cli.StringFlag{Name: "pattern", Value: settings.Segmented.String(), Destination: &o.Pattern, Category: catIO, Usage: "with --layout shared: segmented (thread i writes [i·S, (i+1)·S)) or strided (record j of thread i at (j·threads + i)·block)"},
		&cli.StringFlag{Name: "rand-scope", Value: settings.ScopeSegment.String(), Destination: &o.RandScope, Category: catIO, Usage: "with --layout shared: random phases draw offsets in the thread's own part (segment) or anywhere in the file (file)"},
		&cli.StringFlag{Name: "rand-order", Value: settings.Shuffle.String(), Destination: &o.RandOrder, Category: catIO, Usage: "random phases visit every block of a file once per pass in a shuffled order (shuffle, as IOzone -i2 and fio) or draw offsets with replacement (uniform: some blocks twice, some never)"},
		&cli.StringFlag{Name: "rand-call", Value: settings.CallPread.String(), Destination: &o.RandCall, Category: catIO, Usage: "random phases of the sync engine reach each offset with pread/pwrite (pread, as fio's psync) or with lseek and then read/write, two calls per operation (lseek, as IOzone -i2 and fio's sync engine; `ioswarm iozone` uses it)"},
		&cli.StringFlag{Name: "md-dir", Value: settings.MDDirPerThread.String(), Destination: &o.MDDir, Category: catIO, Usage: "metadata phases: a directory per thread (mdtest easy) or one shared by all threads (shared)"},
		&cli.BoolFlag{Name: "fsync", Value: true, Destination: &o.Fsync, Category: catIO, Usage: "fsync each file before close, inside the timing (IOzone -e); --fsync=false or --no-fsync to skip"},
		&cli.BoolFlag{Name: "no-fsync", Destination: &o.NoFsync, Category: catIO, Usage: "do not fsync before close"},
		&cli.BoolFlag{Name: "direct", Destination: &o.Direct, Category: catIO, Usage: "O_DIRECT for every phase"},
		&cli.BoolFlag{Name: "o-sync", Destination: &o.OSync, Category: catIO, Usage: "open the data phases' files with O_SYNC: each write returns once its data is on stable storage (IOzone -o, fio sync=1); metadata phases are not affected"},
		&cli.BoolFlag{Name: "o-dsync", Destination: &o.ODSync, Category: catIO, Usage: "open the data phases' files with O_DSYNC: each write returns once its data is on stable storage, without the timestamps O_SYNC also waits for (IOzone -+D, fio sync=dsync)"},
		&cli.StringFlag{Name: "engine", Value: settings.Sync.String(), Destination: &o.Engine, Category: catIO, Usage: "sync (pread/pwrite, one operation in flight per thread, as IOzone) or io_uring (up to --iodepth in flight per thread)"},
		&cli.BoolFlag{Name: "verify", Destination: &o.Verify, Category: catIO, Usage: "check the data pattern in read phases (timed)"},
		&cli.StringFlag{Name: "drop-caches", Value: settings.DropAuto.String(), Destination: &o.DropCaches, Category: catIO, Usage: "auto, on or off: drop page caches on every node before each phase"},
		&cli.BoolFlag{Name: "keep", Destination: &o.Keep, Category: catIO, Usage: "keep the files afterwards (IOzone -w)"},
		&cli.StringFlag{Name: "read-shift", Value: "auto", Destination: &o.ReadShift, Category: catIO, Usage: "read phases read the files written N nodes further along (IOR -Q), so no node reads what its own cache holds; auto = 1 on two nodes or more, 0 on one"},
		&cli.StringFlag{Name: "reuse", Destination: &o.Reuse, Category: catIO, Usage: "read the files a --keep run left instead of writing new ones: its job id, its ioswarm-<id> directory, or latest (the newest under --dir); read phases, and randwrite, which writes the bytes the files hold; checked against that run's manifest"},
		&cli.BoolFlag{Name: "allow-mixed-fs", Destination: &o.AllowMixedFS, Category: catIO, Usage: "run even when the nodes' --dir are on different filesystems"},
		&cli.BoolFlag{Name: "ignore-space", Destination: &o.IgnoreSpace, Category: catIO, Usage: "start even when --dir's free space or inodes are less than the job writes (for a filesystem that reports them wrongly)"},
		&cli.BoolFlag{Name: "ignore-memory", Destination: &o.IgnoreMemory, Category: catIO, Usage: "start even when a node's memory plan exceeds its available memory (each rank still stops itself before the kernel runs out)"},
		&cli.IntFlag{Name: "iterations", Value: 1, Destination: &o.Iterations, Category: catIO, Usage: "run every phase this many times"},
		&cli.DurationFlag{Name: "stonewall", Destination: &o.Stonewall, Category: catIO, Usage: "stop timing a phase after this long, such as 30s (writers finish their files untimed)"},
		&cli.BoolFlag{Name: "first-done-stop", Destination: &o.FirstDoneStop, Category: catIO, Usage: "IOzone's stonewall: when the first thread has done its last record, every other stops timing at its next one (fsync and close inside its time), then finishes its file untimed; the IOzone figures come from those timings (ioswarm iozone does this unless -x)"},
		&cli.DurationFlag{Name: "rand-time", Value: 2 * time.Minute, Destination: &o.RandTime, Category: catIO, Usage: "random phases stop after this long (IOzone does file size / record operations, which over a large aggregate takes hours); 0 runs every operation"},

		&cli.StringFlag{Name: "total", Destination: &o.Total, Category: catSizes, Usage: total},
		&cli.StringFlag{Name: "file-size", Destination: &o.FileSize, Category: catSizes, Usage: fileSize},
		&cli.StringFlag{Name: "block", Value: "16MiB", Destination: &o.Block, Category: catSizes, Usage: "record size of sequential phases"},
		&cli.StringFlag{Name: "rand-block", Value: "4KiB", Destination: &o.RandBlock, Category: catSizes, Usage: "operation size of random phases"},
		&cli.IntFlag{Name: "files-per-thread", Value: 1000, Destination: &o.FilesPerThread, Category: catSizes, Usage: "metadata phases: files each thread creates, stats, reads and deletes"},
		&cli.StringFlag{Name: "md-size", Value: "0", Destination: &o.MDSize, Category: catSizes, Usage: "metadata phases: bytes written into each file at create and read back by mdread (IO500 hard: 3901)"},
		&cli.StringFlag{Name: "server-cache", Destination: &o.ServerCache, Category: catSizes, Usage: "what the storage servers can cache in all (e.g. 384GiB); counted by the cache check and --total auto"},

		&cli.IntFlag{Name: "local-ranks", Value: 1, Destination: &o.LocalRanks, Category: catLaunch, Usage: "rank processes on this machine when no nodes are given"},
		heartbeatFlag(&o.HeartbeatTimeout),
	}
}

// heartbeatFlag is shared by the commands that start ranks and the rank
// itself.
func heartbeatFlag(dst *time.Duration) cli.Flag {
	return &cli.DurationFlag{Name: "heartbeat-timeout", Value: 5 * time.Second, Destination: dst, Category: catLaunch,
		Usage: "a rank or coordinator silent this long fails the job"}
}

// runThreadsFlags are run's (and iozone's) --threads and --iodepth: one
// number each.
func runThreadsFlags(threads, depth *int) []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "threads", Value: 4, Destination: threads, Category: catIO, Usage: "threads (one file each), placed round-robin over the nodes' ranks"},
		&cli.IntFlag{Name: "iodepth", Value: 1, Destination: depth, Category: catIO, Usage: "operations in flight per thread with --engine io_uring"},
	}
}

// sweepThreadsFlags are sweep's --threads and --iodepth: lists.
func sweepThreadsFlags(threads, depths *string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "threads", Value: "1..16", Destination: threads, Category: catIO,
			Usage: "thread counts: A..B is every power of two from A to B (1..512), or a list such as 1,2,4,6"},
		&cli.StringFlag{Name: "iodepth", Value: "1", Destination: depths, Category: catIO,
			Usage: "queue depths per thread with --engine io_uring, a list like --threads (1,4,16,64 or 1..64): every thread count runs at every depth"},
	}
}

// reportOptions shape the output; shared by run, sweep and iozone.
type reportOptions struct {
	Format, Details, Output, Label, CSV, Progress string
	Quiet                                         bool
	ProgressInterval                              time.Duration
}

func reportFlags(o *reportOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Value: "table", Destination: &o.Format, Category: catOutput, Usage: "what to print: table, json or csv"},
		&cli.StringFlag{Name: "details", Destination: &o.Details, Category: catOutput, Usage: "more table blocks: phases (sizes, window, latency spread, skew, cache), nodes (each node's share), threads (every record), or all; comma list"},
		&cli.StringFlag{Name: "output", Destination: &o.Output, Category: catOutput, Usage: "write the full JSON result to this file (checked writable before any rank starts; an existing file is replaced)"},
		&cli.StringFlag{Name: "label", Destination: &o.Label, Category: catOutput, Usage: "a name for this system in comparisons"},
		&cli.BoolFlag{Name: "quiet", Destination: &o.Quiet, Category: catOutput, Usage: "no progress or rank log lines"},
		&cli.StringFlag{Name: "csv", Destination: &o.CSV, Category: catOutput, Usage: "append one row per phase to this CSV file (a sweep: per point); the header is written only when the file is new or empty"},
		&cli.StringFlag{Name: "progress", Value: "auto", Destination: &o.Progress, Category: catOutput, Usage: "live progress on stderr: tty (one line redrawn per phase), plain (a line every --progress-interval), off, or auto (tty on a terminal, else plain)"},
		&cli.DurationFlag{Name: "progress-interval", Value: 10 * time.Second, Destination: &o.ProgressInterval, Category: catOutput, Usage: "time between plain progress lines"},
	}
}

// launchOptions choose where ranks run; shared by run, sweep, iozone and
// hosts.
type launchOptions struct {
	Hosts, Launcher, SSHUser, Identity, SSHConfig, RemoteBin, Listen string
	ConnectTimeout                                                   time.Duration
	SSHFanout                                                        int
	CopyTree                                                         bool
	// HostsGiven is true when --hosts was given, even as "".
	HostsGiven bool
	// loaded is --hosts as read (see hostEntries).
	loaded *loadedHosts
}

func launchFlags(o *launchOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "hosts", Destination: &o.Hosts, Category: catLaunch, Usage: "nodes: a host file, an IOzone -+m client file, or a list such as node[01-16],gpu1 (threads go round-robin in this order)"},
		&cli.StringFlag{Name: "launcher", Value: "auto", Destination: &o.Launcher, Category: catLaunch, Usage: "auto, local, ssh or srun (auto: srun inside a Slurm allocation, ssh with --hosts, else local)"},
		&cli.StringFlag{Name: "remote-bin", Destination: &o.RemoteBin, Category: catLaunch, Usage: "`PATH` of this very ioswarm build installed on every node (nothing is copied)"},
		&cli.StringFlag{Name: "listen", Destination: &o.Listen, Category: catLaunch, Usage: "`ADDR:PORT` the coordinator listens on and ranks dial (default: each node dials this machine's address as its SSH connection, or its route to the node under srun, sees it)"},
		&cli.StringFlag{Name: "ssh-user", Destination: &o.SSHUser, Category: catSSH, Usage: "login name for nodes that name none (default: ~/.ssh/config's User, then your own)"},
		&cli.StringFlag{Name: "identity", Destination: &o.Identity, Category: catSSH, Usage: "private key `FILE` to log in with, tried before ssh-agent's keys and ~/.ssh/id_*"},
		&cli.StringFlag{Name: "ssh-config", Destination: &o.SSHConfig, Category: catSSH, Usage: "ssh_config `FILE` to read instead of ~/.ssh/config and /etc/ssh/ssh_config"},
		&cli.DurationFlag{Name: "connect-timeout", Value: 10 * time.Second, Destination: &o.ConnectTimeout, Category: catSSH, Usage: "per node: connect, handshake and log in within this; a connection silent this long is dropped"},
		&cli.IntFlag{Name: "ssh-fanout", Value: 32, Destination: &o.SSHFanout, Category: catSSH, Usage: "nodes contacted at once"},
		&cli.BoolFlag{Name: "copy-tree", Value: true, Destination: &o.CopyTree, Category: catSSH, Usage: "nodes that need this build stream it from the coordinator or from nodes that have it, verified by SHA-256 (needs bash and timeout on the nodes and TCP between them; any node that cannot gets it over SSH); --copy-tree=false sends every copy over SSH"},
	}
}

// chartOptions place and size the chart; shared by sweep, plot and compare.
type chartOptions struct {
	Chart, ChartSize string
	chartWords
}

func chartFlags(o *chartOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "chart", Destination: &o.Chart, Category: catOutput, Usage: "write the chart to PATH.svg and PATH.png (default: next to the results, same base name)"},
		&cli.StringFlag{Name: "chart-size", Value: fmt.Sprintf("%dx%d", chart.DefaultWidth, chart.DefaultHeight), Destination: &o.ChartSize, Category: catOutput, Usage: "chart size in pixels, WIDTHxHEIGHT"},
		&cli.StringFlag{Name: "title", Destination: &o.Title, Category: catOutput, Usage: "the chart's title (default: what is drawn and the study's name)"},
		&cli.StringFlag{Name: "subtitle", Destination: &o.Subtitle, Category: catOutput, Usage: "the chart's second title line (default: the configuration; \"\" for none)"},
		&cli.StringFlag{Name: "x-label", Destination: &o.XLabel, Category: catOutput, Usage: "the chart's x axis label"},
		&cli.StringFlag{Name: "y-label", Destination: &o.YLabel, Category: catOutput, Usage: "the bandwidth panel's y axis label"},
		&cli.StringFlag{Name: "iops-label", Destination: &o.IOPSLabel, Category: catOutput, Usage: "the IOPS panel's y axis label"},
		&cli.StringFlag{Name: "chart-phases", Destination: &o.ChartPhases, Category: catOutput, Usage: "draw only these phases, comma-separated (default: all)"},
	}
}

// invocation is what a command's options hold besides their flags:
// filled from the CLI by invocationFrom, set directly by tests.
type invocation struct {
	given       given
	args        []string // positional arguments
	commandLine string
	stdout      io.Writer
	stderr      io.Writer
}

func invocationFrom(c *cli.Context) invocation {
	return invocation{given: givenFrom(c), args: c.Args().Slice(), commandLine: strings.Join(os.Args, " "),
		stdout: c.App.Writer, stderr: c.App.ErrWriter}
}

// given says which flags the user gave, whatever their value: what a
// plain options struct cannot tell (--hosts ” against no --hosts).
type given map[string]bool

// givenFrom lists the flags of c's command that were set.
func givenFrom(c *cli.Context) given {
	g := given{}
	for _, f := range c.Command.Flags {
		if n := f.Names()[0]; c.IsSet(n) {
			g[n] = true
		}
	}
	return g
}
