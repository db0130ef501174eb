package main

import (
	"context"
	"fmt"
	"time"
)

// accepter lets a held packet go; the socket does it in the program, a
// recorder does it in tests.
type accepter interface {
	accept(id uint32) error
}

// held is a packet waiting for its due time.
type held struct {
	id  uint32
	due time.Time
}

// delayer holds every packet for the same time. Equal delays make due
// times rise in arrival order, so a FIFO served by one loop is also a
// schedule, and no packet can overtake another: TCP over a delayed link
// sees latency, not reordering.
type delayer struct {
	delay time.Duration
	fifo  chan held // bounded: its capacity is the most packets held
	out   accepter
	now   func() time.Time
}

func newDelayer(delay time.Duration, limit int, out accepter) *delayer {
	return &delayer{delay: delay, fifo: make(chan held, limit), out: out, now: time.Now}
}

// offer queues a packet that has just arrived. When the FIFO is full the
// packet passes at once: memory stays bounded, and a packet let through
// early costs less than one held without bound or dropped.
func (d *delayer) offer(id uint32) (queued bool, err error) {
	select {
	case d.fifo <- held{id: id, due: d.now().Add(d.delay)}:
		return true, nil
	default:
		return false, d.out.accept(id)
	}
}

// close tells serve that no packet will be offered any more. Only the one
// goroutine that offers may call it.
func (d *delayer) close() { close(d.fifo) }

// serve accepts each packet at its due time, in arrival order, until close
// has been called and the FIFO is empty. Once ctx is done it stops waiting
// and accepts what is left at once, so that shutting down never strands a
// packet in the kernel's queue.
func (d *delayer) serve(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for p := range d.fifo {
		if wait := p.due.Sub(d.now()); wait > 0 && ctx.Err() == nil {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
			case <-timer.C:
			}
		}
		if err := d.out.accept(p.id); err != nil {
			return fmt.Errorf("accepting a delayed packet: %w", err)
		}
	}
	return nil
}
