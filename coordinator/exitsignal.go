package coordinator

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// exitText says how a rank process ended: the launcher's error, with the
// signal named where one ended it, and for SIGKILL the likeliest reason,
// since the kernel's OOM killer sends nothing else and says nothing to
// the process it kills.
func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return signalText(ws.Signal()) + noteFor(ws.Signal())
		}
	}
	text := err.Error()
	switch {
	case strings.Contains(text, "killed by signal KILL"), strings.Contains(text, ": Killed"):
		// The SSH launcher's "killed by signal KILL", srun's "task 0: Killed".
		return text + oomNote
	}
	if m := shellSignal.FindStringSubmatch(text); m != nil {
		if n, _ := strconv.Atoi(m[1]); n > 128 && n <= 128+31 {
			sig := syscall.Signal(n - 128)
			return fmt.Sprintf("%s, as a shell reports a process %s (128 + %d)", text, signalText(sig), n-128) + noteFor(sig)
		}
	}
	return text
}

// shellSignal finds an exit status a shell gives a child a signal ended.
var shellSignal = regexp.MustCompile(`exit (?:status|code) (\d+)`)

// oomNote explains a SIGKILL nobody asked for.
const oomNote = "; SIGKILL is what the kernel's OOM killer sends when a node runs out of memory (see dmesg or journalctl -k on the node; a batch system's memory limit does the same): memory may be the cause"

// signalText names a signal: "killed by signal SIGTERM (terminated)".
func signalText(sig syscall.Signal) string {
	name := unix.SignalName(sig)
	if name == "" {
		name = "signal " + strconv.Itoa(int(sig))
	}
	return fmt.Sprintf("killed by signal %s (%s)", name, sig)
}

// noteFor is what a signal adds to the message: for SIGKILL, the OOM
// killer's likely part.
func noteFor(sig syscall.Signal) string {
	if sig == syscall.SIGKILL {
		return oomNote
	}
	return ""
}
