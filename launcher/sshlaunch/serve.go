package sshlaunch

import "sync"

// Which nodes serve their copy to others (tree.go): a node promises to
// serve when its fetch starts, if one more server would be used, and
// joins the tree's servers once its server answers.

// servingLocked says whether nodes should start servers: not once
// fetches between nodes have failed and none worked; t.mu is held.
func (t *copyTree) servingLocked() bool { return !t.fromNodes.ruledOut() }

// serveNext says whether the node whose fetch is starting should serve
// its copy afterwards, and if so counts it as promised until endFetch: a
// node serves only while the nodes that may still want a copy outnumber
// the node slots free or promised. Nodes that have not been probed yet
// count as wanting one, so this errs towards serving. A server costs its
// node a session and a process where it has no rank to serve from, and a
// slot of the rank's attention where it has; in a cold launch of 16
// nodes most of those that served before sent nothing.
func (t *copyTree) serveNext() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.servingLocked() {
		return false
	}
	free, fetching := 0, 0
	for _, s := range t.sources {
		fetching += s.busy
		if s.node {
			free += s.slots - s.busy
		}
	}
	if t.unplaced-fetching <= free+t.promised*nodeSlots {
		return false
	}
	t.promised++
	return true
}

// endFetch ends serveNext's promise of a fetch that has ended.
func (t *copyTree) endFetch() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.promised--
}

// placed counts a node through placement, however it went.
func (t *copyTree) placed() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unplaced--
}

// addNode adds the server a node became, unless nodes serve no more; its
// end is run when the tree closes (or now, if the tree has closed).
func (t *copyTree) addNode(name, host string, port int, end func()) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		end()
		return
	}
	defer t.mu.Unlock()
	t.closers = append(t.closers, end)
	if t.servingLocked() {
		t.add(&copySource{name: name, host: host, port: port, slots: nodeSlots, node: true})
	}
}

// servePromise is a node's promise to serve its copy once fetched: the
// tree counts it (serveNext) from the start of the fetch until end, which
// whoever holds the promise last runs once: the fetch, or the held
// session whose rank is to serve (heldProbe.serve).
type servePromise struct {
	tree *copyTree
	host string // the address other nodes dial to reach the node
	once sync.Once
}

// promiseServe is the promise of the node at host to serve after its
// fetch, or nil where one more server would not be used (serveNext).
func (t *copyTree) promiseServe(host string) *servePromise {
	if !t.serveNext() {
		return nil
	}
	return &servePromise{tree: t, host: host}
}

// end ends the tree's count of the promise; later calls do nothing.
func (s *servePromise) end() {
	if s != nil {
		s.once.Do(s.tree.endFetch)
	}
}
