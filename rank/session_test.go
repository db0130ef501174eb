package rank

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"ioswarm/barrier"
	"ioswarm/settings"
	"ioswarm/wire"
)

// A session runs several jobs (a sweep's points). A job aborted after an
// earlier one finished cleanly must still have its files removed by the
// rank: the earlier job's "cleaned" must not carry over.
func TestAbortedLaterJobIsCleanedUp(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := &state{log: io.Discard}
	call := func(kind string, body any) {
		t.Helper()
		raw, _ := json.Marshal(body)
		if _, err := s.handle(ctx, &barrier.Request{Kind: kind, Body: raw}); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	startJob := func(id string) {
		t.Helper()
		call(wire.KindSetup, wire.Setup{Job: wire.Job{ID: id, Seed: 1, Job: settings.Job{FileSize: 4096,
			Block: 4096, RandBlock: 4096, DropCaches: "off"}}, Dir: dir, Threads: []int{0, 1}})
		call(wire.KindCreate, wire.Empty{})
		for th := 0; th < 2; th++ {
			if err := os.WriteFile(wire.ThreadFile(wire.JobDir(dir, id), th), make([]byte, 4096), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	startJob("aaaa01")
	call(wire.KindCleanup, wire.Empty{})
	startJob("aaaa02")
	if err := s.cleanupAfterFailure(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("aborted second job left %d entries in the directory", len(ents))
	}
}
