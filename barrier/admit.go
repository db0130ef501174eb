package barrier

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// Admission. A connection is pending from accept until its first frame, a
// Hello, proves the job secret; only then does it leave the pending pool
// for a place of its rank's (authing) that no stranger can take. Strangers
// therefore compete only with other pending connections, and a genuine
// rank is pending for one network round trip at most:
//
//   - at most maxPerSource connections are pending from one address, and
//     a newcomer over that drops the oldest of the same address, so one
//     flooding host crowds out nobody but itself;
//   - at most maxPending are pending in all, and a newcomer over that drops
//     the oldest connection of the address with the most pending;
//   - "the oldest" is the oldest that has sent nothing yet, while there is
//     one (unread.go): a rank's Hello waiting to be read is not dropped
//     for a flood's idle connection;
//   - a rank whose connection was dropped before its handshake completed
//     dials again with backoff until its join deadline (Dial).
//
// Refusals before the proof are counted by source (strangers.go); a refused
// rank that proved the secret (wrong binary, rank taken) is logged in full.
const (
	maxPending   = 256
	maxPerSource = 16
)

// pendingConn is a connection that has not yet proved the secret.
type pendingConn struct {
	src string
	at  time.Time
}

// admit registers a new connection and starts its handshake.
func (c *Coordinator) admit(conn net.Conn) {
	src := sourceOf(conn.RemoteAddr())
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		_ = conn.Close()
		return
	}
	var evicted net.Conn
	var evictedSrc string
	switch {
	case c.bySource[src] >= maxPerSource:
		evicted, evictedSrc = c.oldestPending(src), src
	case len(c.pending) >= maxPending:
		evictedSrc = c.busiestSource()
		evicted = c.oldestPending(evictedSrc)
	}
	if evicted != nil {
		c.dropPending(evicted)
	}
	c.pending[conn] = pendingConn{src: src, at: time.Now()}
	c.bySource[src]++
	c.wg.Add(1)
	c.mu.Unlock()

	if evicted != nil {
		_ = evicted.Close()
		c.strangers.refused(evictedSrc, whyCrowded)
	}
	go func() {
		defer c.wg.Done()
		c.serveConn(conn, src)
	}()
}

// oldestPending must be called with c.mu held; src has pending
// connections. It is the oldest of src's that has sent nothing yet, or
// the oldest of all of them when every one has bytes waiting.
func (c *Coordinator) oldestPending(src string) net.Conn {
	return oldestOf(c.pending, src, unread)
}

// oldestOf is oldestPending's choice among pending, with waiting telling
// how many bytes a connection has sent that are not yet read.
func oldestOf(pending map[net.Conn]pendingConn, src string, waiting func(net.Conn) int) net.Conn {
	var oldest, oldestSilent net.Conn
	var at, silentAt time.Time
	for conn, p := range pending {
		if p.src != src {
			continue
		}
		if oldest == nil || p.at.Before(at) {
			oldest, at = conn, p.at
		}
		if (oldestSilent == nil || p.at.Before(silentAt)) && waiting(conn) == 0 {
			oldestSilent, silentAt = conn, p.at
		}
	}
	if oldestSilent != nil {
		return oldestSilent
	}
	return oldest
}

// busiestSource must be called with c.mu held.
func (c *Coordinator) busiestSource() string {
	best, most := "", 0
	for src, n := range c.bySource {
		if n > most || (n == most && src < best) {
			best, most = src, n
		}
	}
	return best
}

// dropPending forgets a pending connection; c.mu is held. It reports
// whether conn was pending.
func (c *Coordinator) dropPending(conn net.Conn) bool {
	p, ok := c.pending[conn]
	if !ok {
		return false
	}
	delete(c.pending, conn)
	if c.bySource[p.src]--; c.bySource[p.src] <= 0 {
		delete(c.bySource, p.src)
	}
	return true
}

// forget removes conn from admission after its handshake failed and
// reports whether it was still there: a connection evicted, replaced or
// cut by Close has been accounted for already.
func (c *Coordinator) forget(conn net.Conn, rank int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropPending(conn) {
		return true
	}
	if rank >= 0 && c.authing[rank] == conn {
		delete(c.authing, rank)
		return true
	}
	return false
}

func (c *Coordinator) serveConn(conn net.Conn, src string) {
	addr := conn.RemoteAddr().String()
	// One deadline for the whole handshake: trickling bytes cannot extend it.
	_ = conn.SetDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	t := newTransport(conn)
	s, err := c.authenticate(t, src, addr)
	if err == nil {
		c.runSession(s)
		return
	}
	_ = conn.Close()
	var se *strangerError
	if errors.As(err, &se) {
		if c.forget(conn, -1) {
			c.strangers.refused(src, se.why)
		}
		return
	}
	var re *rankRefusal
	if errors.As(err, &re) && c.forget(conn, re.rank) && !re.logged {
		c.logRefusal(re, addr)
	}
}

// promote moves a connection whose Hello proved the secret from the
// pending pool to its rank's place, which strangers cannot take. A newer
// attempt of the same rank replaces an older one (the rank gave up on it).
// It reports false for a replayed Hello, or a connection dropped meanwhile.
func (c *Coordinator) promote(conn net.Conn, rank int, tag []byte) bool {
	var key [macLen]byte
	copy(key[:], tag)
	c.mu.Lock()
	_, replayed := c.seen[key]
	ok := !replayed && !c.closing && c.dropPending(conn)
	var older net.Conn
	if ok {
		c.seen[key] = struct{}{}
		older = c.authing[rank]
		c.authing[rank] = conn
	}
	c.mu.Unlock()
	if older != nil {
		_ = older.Close()
		c.cfg.Debugf("rank %d dialled again; dropped its earlier handshake from %s", rank, older.RemoteAddr())
	}
	return ok
}

// claim gives the authenticated session its rank slot. The slot is taken
// only after the proof, so a stranger can never hold a rank hostage.
func (c *Coordinator) claim(s *session) error {
	c.mu.Lock()
	ours := c.authing[s.rank] == s.t.conn
	live := ours && !c.closing
	dup := c.members[s.rank] != nil
	if live && !dup {
		delete(c.authing, s.rank)
		c.members[s.rank] = s
	}
	c.mu.Unlock()
	switch {
	case !live:
		return errors.New("dropped during handshake")
	case dup:
		return reject(s.t, fmt.Sprintf("rank %d already joined", s.rank))
	}
	return nil
}
