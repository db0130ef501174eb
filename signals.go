package main

import (
	"fmt"
	"io"
	"os"
)

// exitOnSecondSignal waits for another signal after first and then calls
// exit with first's exit code. The first signal cancels the run, which
// then stops its ranks and removes its files; should something still not
// give way (a wait the cancel cannot reach), the user's second Ctrl-C
// ends the process, as without a handler, instead of leaving SIGKILL the
// only way out. The ranks stop by themselves when their input from this
// process ends.
func exitOnSecondSignal(sigs <-chan os.Signal, first os.Signal, stderr io.Writer, exit func(int)) {
	s := <-sigs
	fmt.Fprintf(stderr, "ioswarm: %s again: exiting without waiting for the cleanup (ranks stop when they lose this process; files a rank could not remove stay in the job directory)\n", signalName(s))
	exit(exitCode(fmt.Errorf("interrupted by %s", signalName(first)), first))
}
