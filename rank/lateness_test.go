package rank

import (
	"testing"
	"time"

	"ioswarm/internal/loadslack"
)

// idleLateBound is how late a release may come on an idle machine.
const idleLateBound = 5 * time.Millisecond

// lateBound is how late a release may come now: the idle bound widened by
// what the machine's load delays any thread's wake-up by (see loadslack),
// so only a release later than the machine explains fails.
func lateBound(t *testing.T) time.Duration {
	t.Helper()
	bound := loadslack.Bound(idleLateBound)
	t.Logf("releases may be %v late now", bound)
	return bound
}
