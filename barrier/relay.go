package barrier

import "slices"

// Relayed notes: a rank's word that every rank must act on while they
// are all busy with one request (a phase), such as IOzone's stop flag,
// which the first child to finish raises for all. The coordinator sends
// such a note on to every rank from the session that received it, so the
// way from one rank to the others is one hop through the coordinator and
// waits for no consumer of Notes. A rank reads them from Relayed, apart
// from its requests, which its request loop may not be reading then.

// relays says whether notes of kind are relayed (Config.Relay).
func (c *Coordinator) relays(kind string) bool { return slices.Contains(c.cfg.Relay, kind) }

// relay sends the note frame body to every rank that has joined and not
// left. Each write runs on its own goroutine: one slow rank must not hold
// up the others, nor the reader of the session that brought the note.
func (c *Coordinator) relay(body []byte) {
	c.mu.Lock()
	sessions := slices.Clone(c.members)
	c.mu.Unlock()
	for _, s := range sessions {
		if s == nil || s.left.Load() {
			continue
		}
		c.goTracked(func() {
			if err := s.t.write(msgRelay, body); err != nil {
				s.fail("send relayed note: " + err.Error())
			}
		})
	}
}

// Relayed delivers the notes the coordinator relays from any rank (see
// Config.Relay), their Rank unknown (-1); it is closed when the session
// ends.
func (m *Member) Relayed() <-chan Note { return m.relayed }
