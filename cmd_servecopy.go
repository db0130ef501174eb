package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/binserve"
	"ioswarm/rankproto"
)

// serveCopyCommand is started by the SSH launcher on a node that has just
// received a verified copy of this build: it sends that copy to the other
// nodes the launcher points at it (see binserve), so copies spread from
// node to node instead of all leaving the coordinator. Its standard input
// carries the token; its end (the launcher closed the session, or is gone)
// stops the server. It prints "serving PORT" once listening (rankproto).
func serveCopyCommand() *cli.Command {
	return &cli.Command{
		Name:         "serve-copy",
		Hidden:       true,
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			return runServeCopy(c.Context, os.Stdin, os.Stdout, "/proc/self/exe")
		},
	}
}

// serveCopyLimit ends a server whose launcher never closes its session:
// no launch takes longer to place its copies.
const serveCopyLimit = 15 * time.Minute

func runServeCopy(ctx context.Context, stdin io.Reader, stdout io.Writer, image string) error {
	br := bufio.NewReaderSize(stdin, 128)
	line, err := br.ReadString('\n')
	if err != nil {
		return fmt.Errorf("serve-copy: read the token from standard input: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, serveCopyLimit)
	defer cancel()
	s := &binserve.Server{Path: image, Token: strings.TrimSpace(line)}
	if err := s.Listen(ctx, ":0"); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, rankproto.Serving(s.Port())); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(io.Discard, br)
		cancel()
	}()
	<-ctx.Done()
	s.Wait()
	return nil
}
