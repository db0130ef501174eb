package barrier

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// maxQueued bounds requests received but not yet taken from Requests. The
// coordinator sends one per Call, so a deep queue means a bug, not load.
const maxQueued = 64

// Request is one request from the coordinator; answer it with Reply.
type Request struct {
	Kind string
	Body json.RawMessage
	id   uint64
}

// Member is a rank's session with the coordinator. Its methods are safe
// for concurrent use: handlers may Reply and Notify from any goroutine.
type Member struct {
	t    *transport
	addr string
	rank int
	opt  DialOptions

	requests   chan *Request
	relayed    chan Note
	done       chan struct{}
	readerDone chan struct{}
	closing    atomic.Bool // we are saying goodbye: the hang-up is expected

	mu        sync.Mutex
	ended     bool
	err       error
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
}

func startMember(ctx context.Context, t *transport, addr string, rank int, opt DialOptions) *Member {
	m := &Member{
		t: t, addr: addr, rank: rank, opt: opt,
		requests:   make(chan *Request, maxQueued),
		relayed:    make(chan Note, maxQueued),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
	}
	m.wg.Add(2)
	go m.readLoop()
	go m.heartbeat(ctx)
	return m
}

// Requests delivers the coordinator's requests; it is closed when the
// session ends.
func (m *Member) Requests() <-chan *Request { return m.requests }

// Done is closed when the session ends for any reason.
func (m *Member) Done() <-chan struct{} { return m.done }

// Err says why the session ended: nil after a normal Close from the
// coordinator (or our own Close), *AbortError if the coordinator aborted,
// otherwise the failure ("lost coordinator at ADDR: ..."). It is nil while
// the session runs.
func (m *Member) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// end finishes the session once, recording why, and drops the connection
// so the reader and heartbeat goroutines return.
func (m *Member) end(err error) {
	m.mu.Lock()
	if m.ended {
		m.mu.Unlock()
		return
	}
	m.ended, m.err = true, err
	m.mu.Unlock()
	close(m.done)
	_ = m.t.conn.Close()
}

// lost words a broken link: what is "" for the reader, or the write that
// failed.
func (m *Member) lost(what string, err error) error {
	if what == "" {
		return fmt.Errorf("lost coordinator at %s: %s", m.addr, describeReadErr(err, m.opt.Timeout))
	}
	return fmt.Errorf("lost coordinator at %s: %s%v", m.addr, what, err)
}

func (m *Member) heartbeat(ctx context.Context) {
	defer m.wg.Done()
	err := heartbeat(ctx, m.t, m.opt.Heartbeat, m.done)
	switch {
	case err == nil || m.closing.Load():
	case ctx.Err() != nil:
		m.end(fmt.Errorf("rank %d session cancelled: %w", m.rank, context.Cause(ctx)))
	default:
		m.end(m.lost("send heartbeat: ", err))
	}
}

// readLoop is the only reader. It answers clock probes itself, at once,
// so the round trip does not include a handler's scheduling.
func (m *Member) readLoop() {
	defer m.wg.Done()
	defer close(m.readerDone)
	defer close(m.requests)
	defer close(m.relayed)
	for {
		typ, body, err := m.t.read()
		at := m.opt.Now()
		if err != nil {
			if m.closing.Load() {
				m.end(nil)
			} else {
				m.end(m.lost("", err))
			}
			return
		}
		if err := m.handle(typ, body, at); err != nil {
			m.end(fmt.Errorf("protocol error from coordinator at %s: %w", m.addr, err))
			return
		}
	}
}

func (m *Member) handle(typ byte, body []byte, at int64) error {
	switch typ {
	case msgHeartbeat:
	case msgPing:
		ts, err := getTimes(typ, body, 1)
		if err != nil {
			return err
		}
		if err := m.t.write(msgPong, putTimes(ts[0], at)); err != nil {
			m.end(m.lost("send clock probe reply: ", err))
		}
	case msgRequest:
		var r requestMsg
		if err := decode(typ, body, &r); err != nil {
			return err
		}
		select {
		case m.requests <- &Request{Kind: r.Kind, Body: r.Body, id: r.ID}:
		default:
			return fmt.Errorf("more than %d requests not taken from Requests", maxQueued)
		}
	case msgRelay:
		var n noteMsg
		if err := decode(typ, body, &n); err != nil {
			return err
		}
		select {
		case m.relayed <- Note{Rank: -1, Kind: n.Kind, Body: n.Body}:
		default:
			return fmt.Errorf("more than %d relayed notes not taken from Relayed", maxQueued)
		}
	case msgClose:
		var c closeMsg
		if err := decode(typ, body, &c); err != nil {
			return err
		}
		if c.Reason == "" {
			m.end(nil)
		} else {
			m.end(&AbortError{Reason: c.Reason})
		}
	default:
		return fmt.Errorf("unexpected %s from the coordinator", msgName(typ))
	}
	return nil
}

// Reply answers r. A non-nil err sends an error reply carrying
// err.Error(), which the coordinator's Call returns as *RankError.
func (m *Member) Reply(r *Request, body any, err error) error {
	msg := replyMsg{ID: r.id}
	var encErr error
	if err == nil {
		msg.Body, encErr = encodeBody(body)
		if encErr != nil {
			// Still answer, so the coordinator's barrier does not wait
			// for a reply that will never come.
			err = fmt.Errorf("rank could not encode its %q reply: %w", r.Kind, encErr)
		}
	}
	if err != nil {
		msg.Body, msg.Error = nil, err.Error()
		if msg.Error == "" {
			msg.Error = "error without a message"
		}
	}
	if sendErr := m.send(msgReply, msg); sendErr != nil {
		return sendErr
	}
	return encErr
}

// Notify sends an unsolicited message (progress, a log line) to the
// coordinator.
func (m *Member) Notify(kind string, body any) error {
	b, err := encodeBody(body)
	if err != nil {
		return fmt.Errorf("encode %q note: %w", kind, err)
	}
	return m.send(msgNote, noteMsg{Kind: kind, Body: b})
}

func (m *Member) send(typ byte, v any) error {
	select {
	case <-m.done:
		return fmt.Errorf("send %s: %w", msgName(typ), ErrClosed)
	default:
	}
	if err := m.t.writeJSON(typ, v); err != nil {
		m.end(m.lost(fmt.Sprintf("send %s: ", msgName(typ)), err))
		return fmt.Errorf("send %s to coordinator at %s: %w", msgName(typ), m.addr, err)
	}
	return nil
}

// Close says goodbye, waits briefly for the coordinator to hang up, and
// closes the connection; every goroutine of the session has ended when it
// returns. It reports only a failure to say goodbye; Err keeps the reason
// the session ended.
func (m *Member) Close() error {
	m.closeOnce.Do(func() {
		m.closing.Store(true)
		select {
		case <-m.done:
		default:
			if err := m.t.write(msgGoodbye, nil); err != nil {
				m.closeErr = fmt.Errorf("say goodbye to coordinator at %s: %w", m.addr, err)
			}
			m.t.closeWrite()
			timer := time.NewTimer(closeGrace)
			select {
			case <-m.readerDone:
			case <-timer.C:
			}
			timer.Stop()
		}
		m.end(nil)
		m.wg.Wait()
	})
	return m.closeErr
}
