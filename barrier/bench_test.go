package barrier

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// The benchmarks measure what frame authentication costs: a 16-rank join
// (handshake and clock probe) and gathering phase records from 16 ranks,
// on loopback. They use only the package's exported API, so the same file
// runs against an older version for a before/after comparison.

// benchRecord is shaped like a rank's per-thread record.
type benchRecord struct {
	Host        string `json:"host"`
	Rank        int    `json:"rank"`
	Thread      int    `json:"thread"`
	File        string `json:"file"`
	Bytes       int64  `json:"bytes"`
	Ops         int64  `json:"ops"`
	StartNS     int64  `json:"start_ns"`
	EndNS       int64  `json:"end_ns"`
	AtFirstDone int64  `json:"bytes_at_first_done"`
}

func benchConfig(ranks int) Config {
	return Config{JobID: "job-bench", Secret: []byte("0123456789abcdef-bench-secret"),
		BinaryHash: "5e0b6c1f2d3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", Ranks: ranks}
}

// benchJoin starts a coordinator and ranks that answer every request with
// reply, and returns once all have joined.
func benchJoin(b *testing.B, ranks int, reply json.RawMessage) (*Coordinator, func()) {
	cfg := benchConfig(ranks)
	c, err := Listen(context.Background(), "127.0.0.1:0", cfg)
	if err != nil {
		b.Fatal(err)
	}
	ms := make([]*Member, ranks)
	var wg sync.WaitGroup
	for r := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := Hello{JobID: cfg.JobID, Rank: r, Host: fmt.Sprintf("node%02d", r), BinaryHash: cfg.BinaryHash}
			m, err := Dial(context.Background(), c.Addr().String(), h, cfg.Secret, DialOptions{})
			if err != nil {
				b.Error(err)
				return
			}
			ms[r] = m
			go func() {
				for req := range m.Requests() {
					_ = m.Reply(req, reply, nil)
				}
			}()
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Join(ctx); err != nil {
		b.Fatal(err)
	}
	wg.Wait()
	return c, func() {
		c.Close("")
		for _, m := range ms {
			if m != nil {
				_ = m.Close()
			}
		}
	}
}

// BenchmarkJoin16 is one 16-rank join: dial, handshake, clock probe.
func BenchmarkJoin16(b *testing.B) {
	for b.Loop() {
		_, stop := benchJoin(b, 16, nil)
		stop()
	}
}

func benchGather(b *testing.B, threadsPerRank int) {
	recs := make([]benchRecord, threadsPerRank)
	for i := range recs {
		recs[i] = benchRecord{Host: "node07", Rank: 7, Thread: i, File: fmt.Sprintf("/scratch/ioswarm-job/t%05d", i),
			Bytes: 1 << 34, Ops: 1 << 10, StartNS: 1234567890123, EndNS: 1234567899999, AtFirstDone: 1 << 33}
	}
	body, err := json.Marshal(recs)
	if err != nil {
		b.Fatal(err)
	}
	c, stop := benchJoin(b, 16, body)
	defer stop()
	b.SetBytes(int64(16 * len(body)))
	b.ResetTimer()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := c.Call(ctx, "records", nil); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
}

// BenchmarkGather16x32 gathers 32 thread records from each of 16 ranks
// (a 512-thread job; about 7 KiB per rank).
func BenchmarkGather16x32(b *testing.B) { benchGather(b, 32) }

// BenchmarkGather16x4096 gathers 4096 records per rank (about 0.9 MiB
// each): a large reply, where the per-byte cost shows.
func BenchmarkGather16x4096(b *testing.B) { benchGather(b, 4096) }
