package barrier

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// session is the coordinator's side of one authenticated rank.
type session struct {
	c    *Coordinator
	t    *transport
	rank int
	host string
	addr string

	pongs      chan pong     // clock-probe replies, from the reader
	readerDone chan struct{} // closed when the reader goroutine exits
	left       atomic.Bool   // the rank said goodbye: its hang-up is no failure
	cut        atomic.Bool   // dropped after a failure: nothing more reaches the rank
	info       MemberInfo    // guarded by c.mu
	joined     bool          // clock probed and counted; guarded by c.mu
}

func newSession(c *Coordinator, t *transport, h helloMsg, addr string) *session {
	return &session{
		c: c, t: t, rank: h.Rank, host: h.Host, addr: addr,
		pongs:      make(chan pong, probeCount),
		readerDone: make(chan struct{}),
	}
}

// rankError attributes msg to this session's rank.
func (s *session) rankError(msg string) *RankError {
	return &RankError{Host: s.host, Rank: s.rank, Msg: msg}
}

// fail ends the job with a failure of this rank, unless the rank has left
// or the coordinator is closing (then a broken link is expected), and
// drops the connection so its goroutines end. (A request still being
// written when Close cuts the connection fails here too; counted, it
// listed a healthy rank as cut about once in 750 runs of TestRankGoodbye.)
func (s *session) fail(msg string) {
	if !s.left.Load() && !s.c.isClosing() {
		s.cut.Store(true)
		s.c.fail(s.rankError(msg))
	}
	_ = s.t.conn.Close()
}

// runSession welcomes an authenticated rank, starts its reader and
// heartbeat, probes its clock and counts it as joined.
func (c *Coordinator) runSession(s *session) {
	if err := s.t.startSession(c.cfg.Timeout); err != nil {
		s.fail(fmt.Sprintf("start session: %v", err))
		return
	}
	if err := s.t.writeJSON(msgWelcome, struct{}{}); err != nil {
		s.fail(fmt.Sprintf("send welcome: %v", err))
		return
	}
	if !c.goTracked(s.readLoop) || !c.goTracked(s.heartbeat) {
		_ = s.t.conn.Close()
		return
	}
	offset, bound, err := s.probe(c.life)
	if err != nil {
		if c.life.Err() == nil {
			s.fail(err.Error())
		}
		return
	}
	c.markJoined(s, offset, bound)
}

func (c *Coordinator) markJoined(s *session, offset, bound int64) {
	c.mu.Lock()
	s.info = MemberInfo{Rank: s.rank, Host: s.host, Addr: s.addr, ClockOffset: offset, ClockError: bound}
	s.joined = true
	c.joined++
	if c.joined == c.cfg.Ranks {
		close(c.allJoined)
	}
	c.mu.Unlock()
	c.cfg.Debugf("rank %d joined from %s (host %s), clock offset %d ns ± %d ns",
		s.rank, s.addr, s.host, offset, bound)
}

func (s *session) heartbeat() {
	err := heartbeat(s.c.life, s.t, s.c.cfg.Heartbeat, s.readerDone)
	if err != nil && s.c.life.Err() == nil {
		s.fail("send heartbeat: " + err.Error())
	}
}

// readLoop is the only reader of the connection. It never blocks on a
// consumer, so pongs are timed as they arrive and heartbeats are noticed.
func (s *session) readLoop() {
	defer close(s.readerDone)
	defer s.t.conn.Close()
	for {
		typ, body, err := s.t.read()
		at := s.c.cfg.Now() // first thing, so a pong's arrival is timed tightly
		if err != nil {
			if !s.left.Load() && !s.c.isClosing() {
				s.fail(describeReadErr(err, s.c.cfg.Timeout))
			}
			return
		}
		if err := s.handle(typ, body, at); err != nil {
			s.fail("protocol error: " + err.Error())
			return
		}
	}
}

func (s *session) handle(typ byte, body []byte, at int64) error {
	switch typ {
	case msgHeartbeat:
	case msgPong:
		ts, err := getTimes(typ, body, 2)
		if err != nil {
			return err
		}
		select {
		case s.pongs <- pong{sent: ts[0], rank: ts[1], recv: at}:
		default: // nobody probing; a late pong is worthless anyway
		}
	case msgReply:
		var m replyMsg
		if err := decode(typ, body, &m); err != nil {
			return err
		}
		s.c.deliver(s.rank, m.ID, reply{body: m.Body, err: m.Error})
	case msgNote:
		var m noteMsg
		if err := decode(typ, body, &m); err != nil {
			return err
		}
		if s.c.relays(m.Kind) {
			s.c.relay(body)
		}
		select {
		case s.c.notes <- Note{Rank: s.rank, Kind: m.Kind, Body: m.Body}:
		default:
		}
	case msgGoodbye:
		s.left.Store(true)
		s.c.memberLeft(s.rank)
	default:
		return fmt.Errorf("unexpected %s from a rank", msgName(typ))
	}
	return nil
}

// reply is one rank's answer to a call; err non-empty is an error reply.
type reply struct {
	rank int
	body json.RawMessage
	err  string
}
