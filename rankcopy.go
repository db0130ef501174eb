package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// removeOrphanedCopy removes path, the copy of this binary sbcast put on
// the node, when the rank was orphaned: ended by a signal, or by the end
// of its input, which is the coordinator gone. scancel and a job's time
// limit end every step with SIGTERM (before SIGKILL) and the coordinator
// with them, so nobody else is left to remove the copy; in any other end
// the coordinator's launcher removes it when it closes. Only the rank's
// own running image is removed, which it no longer needs once running; a
// path that is not that image (or is already gone) is left alone.
func removeOrphanedCopy(orphaned bool, path string, log io.Writer) {
	if !orphaned || path == "" {
		return
	}
	if self, err := os.Executable(); err != nil || self != path {
		return
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(log, "warning: could not remove this node's copy of ioswarm %s: %v\n", path, err)
	}
}
