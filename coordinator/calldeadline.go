package coordinator

import (
	"time"

	"ioswarm/wire"
)

// controlCallTimeout bounds the calls that do no I/O of the job's size: a
// rank answers them at once on any filesystem that answers at all, so one
// still silent after this (its handler stuck on a hung mount, a FIFO) is
// named rather than waited for. A minute leaves room for a loaded node.
const controlCallTimeout = time.Minute

// callLimit is the deadline of a call of kind; 0 leaves the calls whose
// time grows with the job (phases, prefill, cache drops, file removal)
// to the heartbeats and the user.
func callLimit(kind string) time.Duration {
	switch kind {
	case wire.KindFacts, wire.KindSetup, wire.KindCreate, wire.KindFindKept, wire.KindManifest,
		wire.KindFirstDone, wire.KindSeries:
		return controlCallTimeout
	}
	return 0
}
