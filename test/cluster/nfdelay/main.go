// Command nfdelay adds a fixed latency to the packets of one network
// namespace, where the kernel lacks sch_netem. It binds an NFQUEUE queue
// and gives each packet the kernel queues there the verdict ACCEPT a fixed
// time after it arrived, in arrival order.
//
// cluster.sh starts it inside a node's network namespace and sends that
// node's traffic to the queue with iptables rules of the form
//
//	iptables -A OUTPUT -o eth0 -j NFQUEUE --queue-num 1 --queue-bypass
//
// Usage:
//
//	nfdelay -queue 1 -delay 40ms [-limit 4096] [-ready FILE]
//
// The queue is set up fail-open and the rules with --queue-bypass, so a
// packet is never dropped on this program's account: one that finds the
// program gone, or its queue full, passes undelayed. At most -limit
// packets are held; more pass at once. The program writes FILE once the
// queue is bound, so a caller knows when to add the rules, and on SIGTERM
// or SIGINT it lets every held packet go and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

type options struct {
	queue uint
	delay time.Duration
	limit uint
	ready string
	args  []string
}

func main() {
	var o options
	flag.UintVar(&o.queue, "queue", 1, "NFQUEUE queue `number` to bind (0-65535)")
	flag.DurationVar(&o.delay, "delay", 0, "how long to hold each packet, e.g. 40ms")
	flag.UintVar(&o.limit, "limit", 4096, "most packets held at once; more pass undelayed")
	flag.StringVar(&o.ready, "ready", "", "`file` to write once the queue is bound")
	flag.Parse()
	o.args = flag.Args()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(os.Stderr, "nfdelay: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if len(o.args) > 0 || o.queue > 65535 || o.delay <= 0 || o.limit == 0 || o.limit > 1<<20 {
		return fmt.Errorf("want -queue 0..65535, -delay > 0 and -limit 1..%d, no arguments (got queue %d, delay %v, limit %d, %q)",
			1<<20, o.queue, o.delay, o.limit, o.args)
	}
	c, err := dial(uint16(o.queue))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.bind(ctx, uint32(o.limit)); err != nil {
		return err
	}
	if o.ready != "" {
		if err := os.WriteFile(o.ready, []byte(fmt.Sprintln(os.Getpid())), 0o644); err != nil {
			return fmt.Errorf("writing the ready file: %w", err)
		}
	}
	d := newDelayer(o.delay, int(o.limit), c)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return d.serve(gctx) })
	g.Go(func() error { return pump(gctx, c, d) })
	if err := g.Wait(); err != nil {
		return err
	}
	return c.unbind()
}

// pump reads queued packets and offers them to the delayer until ctx is
// done; then it reads what is still waiting in the socket, so that those
// packets are accepted too, and closes the delayer.
func pump(ctx context.Context, c *conn, d *delayer) error {
	defer d.close()
	stop := context.AfterFunc(ctx, func() { c.f.SetReadDeadline(time.Now()) })
	defer stop()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.recv(buf)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return drain(c, d, buf)
		case errors.Is(err, unix.ENOBUFS):
			// The kernel could not hand over some packets; the queue
			// is fail-open, so they went on undelayed.
			continue
		case err != nil:
			return fmt.Errorf("reading queued packets: %w", err)
		}
		if err := handle(c, d, buf[:n]); err != nil {
			return err
		}
	}
}

// drain offers every packet already waiting in the socket.
func drain(c *conn, d *delayer, buf []byte) error {
	for {
		n, err := c.recvNow(buf)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return nil
		case errors.Is(err, unix.ENOBUFS):
			continue
		case err != nil:
			return fmt.Errorf("draining queued packets: %w", err)
		}
		if err := handle(c, d, buf[:n]); err != nil {
			return err
		}
	}
}

// handle offers the packets of one datagram and reports failed verdicts,
// which the kernel sends back unasked.
func handle(c *conn, d *delayer, datagram []byte) error {
	frames, err := parseFrames(datagram)
	if err != nil {
		return err
	}
	for _, f := range frames {
		if !f.packet {
			if f.errno != 0 {
				fmt.Fprintf(os.Stderr, "nfdelay: a verdict failed: %v\n", f.errno)
			}
			continue
		}
		if _, err := d.offer(f.id); err != nil {
			return err
		}
	}
	return nil
}
