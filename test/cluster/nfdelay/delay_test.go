package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// recorder notes each accepted packet and when it was accepted.
type recorder struct {
	mu   sync.Mutex
	ids  []uint32
	when []time.Time
	fail error
}

func (r *recorder) accept(id uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
	r.when = append(r.when, time.Now())
	return r.fail
}

func (r *recorder) accepted() ([]uint32, []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint32(nil), r.ids...), append([]time.Time(nil), r.when...)
}

// serveAsync runs serve and returns a channel with its result.
func serveAsync(ctx context.Context, d *delayer) <-chan error {
	done := make(chan error, 1)
	go func() { done <- d.serve(ctx) }()
	return done
}

// wait returns serve's result, failing the test if serve never returns.
func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return")
		return nil
	}
}

// Every packet is held at least the delay, and they leave in the order
// they came, though they arrive in bursts with pauses between.
func TestDelayerHoldsInOrder(t *testing.T) {
	const delay = 30 * time.Millisecond
	r := &recorder{}
	d := newDelayer(delay, 16, r)
	done := serveAsync(context.Background(), d)
	arrived := map[uint32]time.Time{}
	for id := uint32(100); id < 110; id++ {
		arrived[id] = time.Now()
		if queued, err := d.offer(id); !queued || err != nil {
			t.Fatalf("offer %d: queued %v, %v", id, queued, err)
		}
		if id%3 == 0 {
			time.Sleep(7 * time.Millisecond)
		}
	}
	d.close()
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	ids, when := r.accepted()
	if len(ids) != 10 {
		t.Fatalf("accepted %v, want 100..109", ids)
	}
	for i, id := range ids {
		if id != uint32(100+i) {
			t.Errorf("accepted %v, want 100..109 in order", ids)
			break
		}
		if held := when[i].Sub(arrived[id]); held < delay {
			t.Errorf("packet %d held %v, want at least %v", id, held, delay)
		}
	}
}

// A full FIFO passes the next packet at once instead of growing.
func TestDelayerFullPassesAtOnce(t *testing.T) {
	r := &recorder{}
	d := newDelayer(time.Hour, 2, r)
	for id := uint32(1); id <= 3; id++ {
		queued, err := d.offer(id)
		if err != nil || queued != (id <= 2) {
			t.Errorf("offer %d: queued %v, %v; want queued only while there is room", id, queued, err)
		}
	}
	if ids, _ := r.accepted(); len(ids) != 1 || ids[0] != 3 {
		t.Errorf("accepted %v at once, want [3]", ids)
	}
	if len(d.fifo) != 2 {
		t.Errorf("FIFO holds %d, want its limit 2", len(d.fifo))
	}
}

// Once shutdown begins, held packets go at once, in order, and serve
// returns when the producer has closed: nothing is left in the kernel.
func TestDelayerShutdownReleasesAll(t *testing.T) {
	r := &recorder{}
	d := newDelayer(time.Hour, 8, r)
	ctx, cancel := context.WithCancel(context.Background())
	done := serveAsync(ctx, d)
	for id := uint32(1); id <= 5; id++ {
		if _, err := d.offer(id); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	d.close()
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if ids, _ := r.accepted(); len(ids) != 5 || ids[0] != 1 || ids[4] != 5 {
		t.Errorf("accepted %v after shutdown, want [1 2 3 4 5]", ids)
	}
}

// A verdict that cannot be sent ends serve with the error.
func TestDelayerReportsVerdictFailure(t *testing.T) {
	r := &recorder{fail: errors.New("socket gone")}
	d := newDelayer(time.Millisecond, 4, r)
	done := serveAsync(context.Background(), d)
	if _, err := d.offer(1); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err == nil || !errors.Is(err, r.fail) {
		t.Errorf("serve returned %v, want the verdict error", err)
	}
}
