// Command ioswarm measures what a filesystem delivers to a cluster: N
// threads over many nodes writing and reading N files, timed together.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	// SIGHUP (a closed terminal or a batch system's hang-up) ends a run
	// like SIGTERM: with a message, cleanup and the partial --output.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	got := make(chan os.Signal, 1)
	go func() {
		s := <-sigs
		got <- s
		// The cause becomes the run's error: the user reads what stopped
		// it, not "context canceled".
		cancel(fmt.Errorf("interrupted by %s", signalName(s)))
		exitOnSecondSignal(sigs, s, os.Stderr, os.Exit)
	}()
	wrapHelpAt(80)
	err := runApp(ctx, os.Args)
	if err != nil && !errors.As(err, new(silentError)) && !errors.As(err, new(shownUsageError)) {
		fmt.Fprintf(os.Stderr, "ioswarm: %v\n", err)
	}
	var sig os.Signal
	select {
	case sig = <-got:
	default:
	}
	os.Exit(exitCode(err, sig))
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
