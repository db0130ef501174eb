package coordinator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"ioswarm/wire"
)

// testShared finds out whether the nodes share the job directory: rank
// 0's node makes a marker in it, every other node looks for it, rank 0
// removes it. It runs once the job directory exists and before any
// phase writes a byte. A filesystem type and source cannot tell two
// nodes' own tmpfs or /dev/nvme0n1p1 apart; the marker can.
//
// Where some node does not see it, reads cannot rotate: --read-shift auto
// becomes 0, with a warning and the cache verdict's reason; an explicit
// shift is a usage error.
func (j *job) testShared(ctx context.Context) error {
	hosts := j.hostsByRank()
	if len(distinctNodes(j.threads, hosts)) < 2 {
		return nil // one node: nothing to share
	}
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		return fmt.Errorf("marker token: %w", err)
	}
	token := hex.EncodeToString(random)
	step := func(name string, who func(int) bool) ([]wire.MarkerReply, error) {
		return callAll[wire.MarkerReply](ctx, j.s.coord, wire.KindMarker, "shared-directory marker", func(r int) any {
			if !who(r) {
				return wire.Marker{}
			}
			return wire.Marker{Step: name, Token: token}
		})
	}
	if _, err := step(wire.MarkerMake, func(r int) bool { return r == 0 }); err != nil {
		return err
	}
	seen, err := step(wire.MarkerLook, func(r int) bool { return r != 0 && len(j.threads[r]) > 0 })
	if _, rerr := step(wire.MarkerRemove, func(r int) bool { return r == 0 }); err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	blind := j.blindNodes(seen)
	if len(blind) == 0 {
		return nil
	}
	return j.notShared(blind)
}

// blindNodes lists the nodes (other than rank 0's) whose ranks with
// threads did not see the marker.
func (j *job) blindNodes(seen []wire.MarkerReply) []string {
	var blind []string
	host0 := j.s.targets[0].Host
	for r, rep := range seen {
		h := j.s.targets[r].Host
		if r == 0 || len(j.threads[r]) == 0 || rep.Seen || h == host0 || slices.Contains(blind, h) {
			continue
		}
		blind = append(blind, h)
	}
	return blind
}

// notShared settles a job whose nodes do not share --dir: no rotation.
func (j *job) notShared(blind []string) error {
	dir := wire.JobDir(j.dirOf(j.s.targets[0]), j.id)
	if j.filesOf != "" {
		dir = wire.JobDir(j.dirOf(j.s.targets[0]), j.filesOf)
	}
	what := fmt.Sprintf("--dir is not shared: %s made a marker in %s that %s cannot see",
		j.s.targets[0].Host, dir, strings.Join(blind, ", "))
	if j.o.ReadShift > 0 {
		return usagef("--read-shift %d: %s; rotated reads need a directory every node sees (use --read-shift 0 for node-local directories)",
			j.o.ReadShift, what)
	}
	j.cold.nodeLocal, j.cold.rotating = true, false
	j.shift = 0
	j.sources = identity(j.o.Threads)
	j.res.Config.ReadShift = 0
	j.warn(what + "; --read-shift auto reads each file on the node that wrote it, and the cache verdict says what that leaves")
	return nil
}
