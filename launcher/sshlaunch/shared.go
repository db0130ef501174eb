package sshlaunch

import (
	"context"
	"sync"

	"ioswarm/rankproto"
)

// sharedCopies tracks, during one Prepare, the copy made into each cache
// directory by its tag. In a cluster whose home directories are one shared
// filesystem, every node's cache is the same directory: one copy serves
// them all, where sixteen nodes each sending their own would move sixteen
// times the bytes into the same file.
type sharedCopies struct {
	mu    sync.Mutex
	byTag map[string]*sharedCopy
}

// sharedCopy is one node's copy into a tagged directory; done closes when
// it has ended, err says how.
type sharedCopy struct {
	done chan struct{}
	err  error
}

// claim returns the copy into the directory tagged tag and whether the
// caller is the first to ask, and so the one to make it.
func (s *sharedCopies) claim(tag string) (*sharedCopy, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.byTag[tag]; ok {
		return c, false
	}
	if s.byTag == nil {
		s.byTag = map[string]*sharedCopy{}
	}
	c := &sharedCopy{done: make(chan struct{})}
	s.byTag[tag] = c
	return c, true
}

// copyOnce puts this build into the node's cache. A node whose cache
// directory carries the tag of one another node is copying to (or has
// copied to) in this Prepare waits for that copy, then has the copy
// verified on its own: found right, it counts as shared and nothing is
// sent. A node with no tag, a failed first copy, or a copy the node does
// not find (a tag copied along with a home directory to another machine)
// gets a copy of its own.
func (p *placement) copyOnce(ctx context.Context, tag string) error {
	st := p.st
	if tag != "" {
		first, lead := st.copies.claim(tag)
		if lead {
			err := p.deliver(ctx)
			first.err = err
			close(first.done)
			if err == nil {
				st.copied.Add(1)
			}
			return err
		}
		select {
		case <-first.done:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		if first.err == nil {
			ans, err := p.reprobe(ctx)
			if err != nil {
				return err
			}
			if ans.States[0] == p.l.build.hash {
				st.viaShared.Add(1)
				return nil
			}
		}
	}
	if err := p.deliver(ctx); err != nil {
		return err
	}
	st.copied.Add(1)
	return nil
}

// reprobe probes the node for the cached copy again: in p.held, the
// node's waiting quick start session, where there is one, else in a
// session of its own.
func (p *placement) reprobe(ctx context.Context) (rankproto.ProbeAnswer, error) {
	if !p.held.alive() {
		return p.l.probe(ctx, p.conns[0], []string{""})
	}
	return p.held.probe(ctx)
}
