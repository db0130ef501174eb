package barrier

import (
	"net"
	"sync"
	"time"
)

// Close tells every rank to stop (reason "" means a normal end, otherwise
// an abort reason the ranks log), waits briefly for the frames to flush,
// closes all connections and the listener, and returns when every
// goroutine of the coordinator has ended. Calls in progress return
// ErrClosed. Safe to call more than once and concurrently.
func (c *Coordinator) Close(reason string) {
	c.closeOnce.Do(func() { c.shutdown(reason) })
	<-c.watcherDone
}

// Cut lists the ranks whose connection was dropped after a failure (lost,
// silent past the timeout, or breaking the protocol). Close's frame cannot
// reach them, so whoever ends the job must stop them another way, and need
// not wait for them to act on an abort they never hear.
func (c *Coordinator) Cut() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for r, s := range c.members {
		if s != nil && s.cut.Load() {
			out = append(out, r)
		}
	}
	return out
}

func (c *Coordinator) shutdown(reason string) {
	c.mu.Lock()
	c.closing = true
	pending := c.pending
	authing := c.authing
	c.pending, c.bySource = make(map[net.Conn]pendingConn), make(map[string]int)
	c.authing = make(map[int]net.Conn)
	var all, live []*session
	for _, s := range c.members {
		if s == nil {
			continue
		}
		all = append(all, s)
		if !s.left.Load() {
			live = append(live, s)
		}
	}
	c.mu.Unlock()

	c.stop() // heartbeats and probes end; the context watcher returns
	_ = c.ln.Close()
	for conn, p := range pending {
		_ = conn.Close()
		c.strangers.refused(p.src, whyClosing)
	}
	for _, conn := range authing {
		_ = conn.Close()
	}
	c.sayClose(live, all, reason)
	c.wg.Wait()
}

// sayClose sends the close frame to every live rank and half-closes, then
// waits until each rank hangs up or closeGrace passes, so the frame is
// read rather than lost to a reset. Then it cuts every connection.
func (c *Coordinator) sayClose(live, all []*session, reason string) {
	force := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.t.writeJSON(msgClose, closeMsg{Reason: reason}) == nil {
				s.t.closeWrite()
			}
			select {
			case <-s.readerDone:
			case <-force:
			}
		}()
	}
	flushed := make(chan struct{})
	go func() {
		wg.Wait()
		close(flushed)
	}()
	timer := time.NewTimer(closeGrace)
	defer timer.Stop()
	select {
	case <-flushed:
	case <-timer.C:
	}
	close(force)
	for _, s := range all {
		_ = s.t.conn.Close()
	}
	<-flushed
}
