package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/barrier"
	"ioswarm/coordinator"
	"ioswarm/rank"
)

// rankCommand is the process a launcher starts on each node. The job
// secret arrives as the first line of standard input; the end of standard
// input means the coordinator is gone.
func rankCommand() *cli.Command {
	return &cli.Command{
		Name:   "rank",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "connect", Required: true},
			&cli.IntFlag{Name: "rank", Required: true},
			&cli.StringFlag{Name: "job", Required: true},
			&cli.StringFlag{Name: "host", Required: true},
			&cli.DurationFlag{Name: "heartbeat-timeout", Value: 5 * time.Second},
			// Given by launchers that verified this very file by SHA-256
			// just before starting it; otherwise the rank hashes itself.
			&cli.StringFlag{Name: "binary-hash"},
		},
		Action: rankAction,
	}
}

func rankAction(c *cli.Context) error {
	secret, stdin, err := readSecret(os.Stdin)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(c.Context)
	defer cancel(nil)
	go func() {
		// Anything more on stdin is ignored; its end is the signal.
		_, _ = io.Copy(io.Discard, stdin)
		cancel(errors.New("standard input closed: the coordinator is gone"))
	}()
	hash := c.String("binary-hash")
	if hash == "" {
		bin, err := os.Executable()
		if err != nil {
			return err
		}
		if hash, err = coordinator.FileHash(bin); err != nil {
			return err
		}
	}
	err = rank.Serve(ctx, rank.Options{
		Addr: c.String("connect"), Rank: c.Int("rank"), JobID: c.String("job"), Host: c.String("host"),
		BinaryHash: hash, Secret: secret, Log: os.Stderr,
		Dial: barrier.DialOptions{Timeout: c.Duration("heartbeat-timeout")},
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

// readSecret reads the hex secret line without buffering past what it
// returns for the watcher.
func readSecret(r io.Reader) ([]byte, io.Reader, error) {
	br := bufio.NewReaderSize(r, 256)
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, nil, fmt.Errorf("read job secret from standard input: %w", err)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(line))
	if err != nil || len(secret) < 16 {
		return nil, nil, fmt.Errorf("job secret on standard input is malformed")
	}
	return secret, br, nil
}

// cleanupCommand removes what a job left on this node after its rank died.
func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:   "cleanup",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Required: true},
			&cli.StringFlag{Name: "job", Required: true},
		},
		Action: func(c *cli.Context) error {
			return rank.RemoveJobFiles(c.String("dir"), c.String("job"))
		},
	}
}
