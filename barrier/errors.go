package barrier

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// RankError is a failure attributed to one rank: an error it replied with,
// or its connection lost or silent. The host and rank let a person find
// the node at once.
type RankError struct {
	Host string
	Rank int
	Msg  string
}

func (e *RankError) Error() string {
	return fmt.Sprintf("host %s rank %d: %s", e.Host, e.Rank, e.Msg)
}

// AbortError is a rank's session ended by the coordinator with a reason,
// e.g. because another rank failed.
type AbortError struct {
	Reason string
}

func (e *AbortError) Error() string {
	return "coordinator aborted the job: " + e.Reason
}

// RejectError is the coordinator's refusal of a rank during the handshake
// (wrong version, job, binary, rank slot).
type RejectError struct {
	Msg string
}

func (e *RejectError) Error() string {
	return "coordinator rejected this rank: " + e.Msg
}

// ErrClosed is returned by calls on a coordinator or member that has been
// closed.
var ErrClosed = errors.New("barrier session closed")

// describeReadErr turns a session read error into words: a deadline
// expiring on a session read means the peer was silent past the timeout.
func describeReadErr(err error, timeout time.Duration) string {
	if errors.Is(err, errForged) {
		return "protocol error: " + err.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("silent for more than %v (no heartbeat)", timeout)
	}
	return "connection lost: " + err.Error()
}
