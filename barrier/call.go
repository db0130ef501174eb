package barrier

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// pendingCall collects the replies of one Call. Its channel holds one slot
// per rank and got[] admits one reply per rank, so the readers delivering
// into it never block.
type pendingCall struct {
	replies chan reply
	got     []bool
}

// Join waits until all cfg.Ranks ranks have joined (authenticated and
// clock-probed). It returns early with the failure if ctx ends or a joined
// rank fails. Results are indexed by rank.
func (c *Coordinator) Join(ctx context.Context) ([]MemberInfo, error) {
	select {
	case <-c.allJoined:
	case <-c.failed:
	case <-c.life.Done():
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for ranks to join (missing %s): %w", c.missing(), ctx.Err())
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	return c.infos(), nil
}

// missing lists the ranks that have not joined, for error messages.
func (c *Coordinator) missing() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for r, s := range c.members {
		if s == nil || !s.joined {
			out = append(out, fmt.Sprint(r))
		}
	}
	if len(out) > 16 {
		out = append(out[:16], fmt.Sprintf("and %d more", len(out)-16))
	}
	return "rank " + strings.Join(out, ", ")
}

func (c *Coordinator) infos() []MemberInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]MemberInfo, len(c.members))
	for r, s := range c.members {
		if s != nil {
			out[r] = s.info
		}
	}
	return out
}

// ready returns every rank's session if all have joined and none has left.
func (c *Coordinator) ready() ([]*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	if c.closing {
		return nil, ErrClosed
	}
	if c.joined < c.cfg.Ranks {
		return nil, fmt.Errorf("only %d of %d ranks have joined", c.joined, c.cfg.Ranks)
	}
	for _, s := range c.members {
		if s.left.Load() {
			return nil, s.rankError("rank has left the job")
		}
	}
	return append([]*session(nil), c.members...), nil
}

// Call sends one request of the given kind to every rank (body(rank)
// builds each rank's body, so times can be converted per rank) and waits
// for every rank's reply; replies are indexed by rank. A rank's error
// reply becomes *RankError, returned at once without waiting for the
// rest. A rank lost or silent past Timeout, or ctx done, ends the call
// with that error; so does Config.CallLimit for kind, naming the ranks
// that did not reply. This request/reply-from-all is the barrier.
func (c *Coordinator) Call(ctx context.Context, kind string, body func(rank int) any) ([]json.RawMessage, error) {
	sessions, err := c.ready()
	if err != nil {
		return nil, fmt.Errorf("call %q: %w", kind, err)
	}
	ctx, cancel := c.callContext(ctx, kind)
	defer cancel()
	id, pc := c.openCall()
	defer c.endCall(id)
	// Every body is encoded before anything is sent, so a bad body cannot
	// leave some ranks working on a request the others never got.
	frames := make([][]byte, len(sessions))
	for r := range sessions {
		if frames[r], err = requestFrame(id, kind, r, body); err != nil {
			return nil, err
		}
	}
	for r, s := range sessions {
		c.goTracked(func() {
			if err := s.t.write(msgRequest, frames[r]); err != nil {
				s.fail("send request: " + err.Error())
			}
		})
	}
	out := make([]json.RawMessage, len(sessions))
	replied := make([]bool, len(sessions))
	for n := 0; n < len(sessions); n++ {
		select {
		case r := <-pc.replies:
			if r.err != "" {
				return nil, sessions[r.rank].rankError(r.err)
			}
			out[r.rank], replied[r.rank] = r.body, true
		case <-c.failed:
			return nil, c.Err()
		case <-c.life.Done():
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, callCut(ctx, kind, sessions, replied)
		}
	}
	return out, nil
}

func requestFrame(id uint64, kind string, rank int, body func(int) any) ([]byte, error) {
	var v any
	if body != nil {
		v = body(rank)
	}
	b, err := encodeBody(v)
	if err != nil {
		return nil, fmt.Errorf("call %q: encode body for rank %d: %w", kind, rank, err)
	}
	frame, err := json.Marshal(requestMsg{ID: id, Kind: kind, Body: b})
	if err != nil {
		return nil, fmt.Errorf("call %q: encode request for rank %d: %w", kind, rank, err)
	}
	return frame, nil
}

func (c *Coordinator) openCall() (uint64, *pendingCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastCall++
	pc := &pendingCall{replies: make(chan reply, c.cfg.Ranks), got: make([]bool, c.cfg.Ranks)}
	c.calls[c.lastCall] = pc
	return c.lastCall, pc
}

func (c *Coordinator) endCall(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.calls, id)
}

// deliver routes a rank's reply to its call. Replies to a call that has
// already returned, or a second reply from the same rank, are dropped.
func (c *Coordinator) deliver(rank int, id uint64, r reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pc := c.calls[id]
	if pc == nil || pc.got[rank] {
		return
	}
	pc.got[rank] = true
	r.rank = rank
	if len(r.body) == 0 {
		r.body = json.RawMessage("null")
	}
	pc.replies <- r
}

// memberLeft answers, with an error, every pending call the departed rank
// has not replied to, so no call waits for a rank that is gone.
func (c *Coordinator) memberLeft(rank int) {
	c.mu.Lock()
	ids := make([]uint64, 0, len(c.calls))
	for id := range c.calls {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.deliver(rank, id, reply{err: "rank left the job before replying"})
	}
}

// ProbeClocks re-runs the clock probe (between phases) on every rank for
// which only says yes, on all when only is nil, and returns the infos,
// fresh for those ranks. Probes run a few ranks at a time: in parallel to
// keep a large job quick, but few enough that the coordinator's own
// scheduling does not inflate the round trips.
func (c *Coordinator) ProbeClocks(ctx context.Context, only func(rank int) bool) ([]MemberInfo, error) {
	sessions, err := c.ready()
	if err != nil {
		return nil, fmt.Errorf("probe clocks: %w", err)
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	const parallel = 8
	sem := make(chan struct{}, parallel)
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for r, s := range sessions {
		if only != nil && !only(r) {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		started := c.goTracked(func() {
			defer func() { <-sem; wg.Done() }()
			errs[r] = c.reprobe(ctx, s)
		})
		if !started {
			<-sem
			wg.Done()
			errs[r] = ErrClosed
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return c.infos(), nil
}

func (c *Coordinator) reprobe(ctx context.Context, s *session) error {
	offset, bound, err := s.probe(ctx)
	if err != nil {
		if ctx.Err() == nil && c.life.Err() == nil {
			s.fail(err.Error())
			if first := c.Err(); first != nil {
				return first // the first failure, likely the cause of this one
			}
			return s.rankError(err.Error())
		}
		return fmt.Errorf("probe clocks: %w", err)
	}
	c.mu.Lock()
	s.info.ClockOffset, s.info.ClockError = offset, bound
	c.mu.Unlock()
	return nil
}
