package barrier

// Missing lists, in order, the ranks that have not joined yet (not
// authenticated and clock-probed), so that a caller whose wait for the
// join ran out can name them, with the hosts it knows them by.
func (c *Coordinator) Missing() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for r, s := range c.members {
		if s == nil || !s.joined {
			out = append(out, r)
		}
	}
	return out
}
