package barrier

import (
	"context"
	"fmt"
	"net"
	"time"

	"ioswarm/clock"
)

const (
	defaultHeartbeat = 500 * time.Millisecond
	defaultTimeout   = 5 * time.Second
	defaultHandshake = 5 * time.Second
	defaultSummary   = 5 * time.Second
	defaultJoin      = 30 * time.Second
	// closeGrace is how long a closing side waits for its peer to read the
	// last frames and hang up before cutting the connection.
	closeGrace = time.Second
)

// heartbeat keeps the link audible: every interval it sends an empty frame
// unless some other frame went out in the last half interval. It runs in
// its own goroutine so a side busy in a long request still heartbeats.
// It returns nil when stop closes, ctx.Err() when ctx ends, and the write
// error when the link fails.
func heartbeat(ctx context.Context, t *transport, every time.Duration, stop <-chan struct{}) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if clock.Now()-t.lastWrite.Load() < int64(every/2) {
			continue
		}
		if err := t.write(msgHeartbeat, nil); err != nil {
			return err
		}
	}
}

// watchHandshake makes ctx's end interrupt blocking handshake I/O on conn by
// moving its deadline into the past. The returned stop ends the watch,
// waits for its goroutine, and reports whether ctx fired first.
func watchHandshake(ctx context.Context, conn net.Conn) (stop func() bool) {
	done := make(chan struct{})
	fired := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			_ = conn.SetDeadline(time.Unix(1, 0))
			fired <- true
		case <-done:
			fired <- false
		}
	}()
	return func() bool {
		close(done)
		return <-fired
	}
}

// durationOr returns d, or def when d is zero.
func durationOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func checkTimes(heartbeat, timeout, handshake time.Duration) error {
	switch {
	case heartbeat < 0 || timeout < 0 || handshake < 0:
		return fmt.Errorf("negative interval (heartbeat %v, timeout %v, handshake timeout %v)", heartbeat, timeout, handshake)
	case heartbeat >= timeout:
		// A peer could then be declared silent between two heartbeats.
		return fmt.Errorf("heartbeat interval %v must be shorter than the timeout %v", heartbeat, timeout)
	}
	return nil
}
