package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/barrier"
	"ioswarm/binserve"
	"ioswarm/rank"
	"ioswarm/rankproto"
	"ioswarm/selfbin"
)

// rankOptions are the hidden rank command's flags; the secret and the
// coordinator's address come on stdin.
type rankOptions struct {
	Rank                          int
	Job, Host                     string
	HeartbeatTimeout, JoinTimeout time.Duration
	BcastCopy                     string // this rank's sbcast copy (rankcopy.go)
	stdin                         io.Reader
	stdout, log                   io.Writer
}

// rankCommand is the process a launcher starts on each node, as
// rankproto specifies: its standard input carries the job secret and the
// coordinator's address to dial (neither belongs on argv, which every
// user of the node can read), and its end means the coordinator is gone.
func rankCommand() *cli.Command {
	var o rankOptions
	return &cli.Command{
		Name:   rankproto.Subcommand,
		Hidden: true,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: rankproto.FlagRank, Required: true, Destination: &o.Rank},
			&cli.StringFlag{Name: rankproto.FlagJob, Required: true, Destination: &o.Job},
			&cli.StringFlag{Name: rankproto.FlagHost, Required: true, Destination: &o.Host},
			heartbeatFlag(&o.HeartbeatTimeout),
			&cli.DurationFlag{Name: rankproto.FlagJoinTimeout, Value: 30 * time.Second, Destination: &o.JoinTimeout},
			&cli.StringFlag{Name: rankproto.FlagBcastCopy, Destination: &o.BcastCopy},
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			o.stdin, o.stdout, o.log = os.Stdin, os.Stdout, os.Stderr
			return runRank(c.Context, o)
		},
	}
}

// runRank is one node's rank: it serves the coordinator until told to
// stop or until its standard input ends.
func runRank(ctx context.Context, o rankOptions) error {
	in, stdin, err := readLaunch(o.stdin)
	if err != nil {
		return err
	}
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	inputClosed := errors.New("standard input closed: the coordinator is gone")
	defer func() {
		orphaned := outer.Err() != nil || errors.Is(context.Cause(ctx), inputClosed)
		removeOrphanedCopy(orphaned, o.BcastCopy, o.log)
	}()
	go func() {
		// Its end is the signal; the lines before it may ask the rank to
		// serve its copy to other nodes for a while, which it does from
		// here on, while it hashes its image: other nodes' copies wait
		// for this one's server.
		watchInput(ctx, stdin, o.stdout, o.log, "/proc/self/exe")
		cancel(inputClosed)
	}()
	// The running image is hashed, and the hash is proved in the
	// handshake: a file swapped after the launcher checked it is refused
	// by the coordinator, whatever the launcher saw. It is hashed in full
	// every time, never taken from the launcher's stamp: the proof must
	// not depend on what fooled the launcher.
	hash, err := selfbin.Image()
	if err != nil {
		return err
	}
	err = rank.Serve(ctx, rank.Options{
		Addr: in.addr, Rank: o.Rank, JobID: o.Job, Host: o.Host,
		BinaryHash: hash, Secret: in.secret, Log: o.log,
		Dial: barrier.DialOptions{Timeout: o.HeartbeatTimeout, JoinTimeout: o.JoinTimeout},
	})
	if _, ok := err.(*barrier.AbortError); ok {
		// Told to stop, and our files are gone: this rank did its part,
		// so the coordinator need not clean up after it. The
		// coordinator has told the user why.
		return nil
	}
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// launchInput is what a rank reads from standard input.
type launchInput struct {
	secret []byte
	addr   string
}

// readLaunch reads the launch lines (rankproto.ReadLaunch), holding the
// secret to the barrier's minimum length, and returns the rest of the
// input for the watcher.
func readLaunch(r io.Reader) (launchInput, io.Reader, error) {
	l, rest, err := rankproto.ReadLaunch(r, barrier.MinSecret)
	return launchInput{secret: l.Secret, addr: l.Addr}, rest, err
}

// watchInput reads what follows the launch lines on a rank's input until
// it ends (rankproto's serve and unserve). On serve the rank serves its
// own image to other nodes (binserve), as serve-copy would without a
// process and a session of its own, and answers "serving PORT" (port 0
// where it cannot); unserve stops it, once every node has its copy. The
// server also stops with the input's end and after serveCopyLimit. Other
// lines are ignored.
func watchInput(ctx context.Context, stdin io.Reader, stdout, log io.Writer, image string) {
	var stop context.CancelFunc
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		req := rankproto.ParseRankRequest(sc.Text())
		switch {
		case req.Serve && stop == nil:
			sctx, cancel := context.WithTimeout(ctx, serveCopyLimit)
			s := &binserve.Server{Path: image, Token: req.Token}
			port := 0
			if err := s.Listen(sctx, ":0"); err != nil {
				cancel()
				fmt.Fprintf(log, "warning: not serving this node's copy to others: %v\n", err)
			} else {
				stop, port = cancel, s.Port()
			}
			_, _ = io.WriteString(stdout, rankproto.Serving(port))
		case req.Unserve && stop != nil:
			stop()
		}
	}
	// A line too long for the scanner must not end the watch early.
	_, _ = io.Copy(io.Discard, stdin)
}

// cleanupCommand removes what a job left on this node after its rank died.
func cleanupCommand() *cli.Command {
	var dir, job string
	return &cli.Command{
		Name:   rankproto.CleanupSubcommand,
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: rankproto.FlagDir, Required: true, Destination: &dir},
			&cli.StringFlag{Name: rankproto.FlagJob, Required: true, Destination: &job},
		},
		OnUsageError: onUsageError,
		Action:       func(c *cli.Context) error { return rank.RemoveJobFiles(dir, job) },
	}
}
