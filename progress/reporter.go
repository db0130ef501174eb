package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// redrawEvery limits terminal redraws: every rank reports about once a
// second, so a large job would otherwise repaint hundreds of times a
// second for nothing.
const redrawEvery = 200 * time.Millisecond

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\x1b[K"

// Reporter shows the progress of one phase at a time. It implements
// coordinator.Progress; its methods may be called from several
// goroutines.
type Reporter struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	clock    func() time.Time

	mu      sync.Mutex
	prefix  string
	cur     *phaseState // nil between phases
	shown   bool        // a TTY line is on screen
	idle    bool        // Plain: "starting" printed, nothing since
	started time.Time   // Plain: when the current phase started
	drawn   time.Duration
	stop    chan struct{}
	ticker  sync.WaitGroup
}

// New returns a Reporter writing to w, or nil for Off. Auto picks TTY
// when w is a terminal. interval is the time between lines in Plain mode.
func New(w io.Writer, mode Mode, interval time.Duration) *Reporter {
	mode = mode.Resolve(w)
	if mode == Off {
		return nil
	}
	return &Reporter{w: w, tty: mode == TTY, interval: interval, clock: time.Now}
}

// SetPrefix sets text shown before the phase name, such as a sweep
// point's thread count.
func (r *Reporter) SetPrefix(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prefix = p
}

// Start begins showing a phase that will move total bytes, or stop being
// timed after limit (its stonewall; 0 = none), whichever comes first. In
// plain mode a line says at once that it started, however short it is.
func (r *Reporter) Start(phase string, iteration int, total int64, limit time.Duration) {
	r.End() // a phase never left unended
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = &phaseState{name: phase, iteration: iteration, total: total, limit: limit}
	r.drawn = 0
	r.idle = true
	if r.tty {
		r.draw()
		return
	}
	r.started = r.clock()
	r.write(r.started.Format("15:04:05") + " " + r.line() + "\n")
	r.stop = make(chan struct{})
	r.ticker.Add(1)
	go r.tick(r.stop)
}

// Update records the bytes all ranks had moved, elapsed after release.
// Updates that arrive after End (a late note from a rank) are ignored.
func (r *Reporter) Update(done int64, elapsed time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return
	}
	r.cur.add(done, elapsed)
	if r.tty && (!r.shown || elapsed-r.drawn >= redrawEvery) {
		r.drawn = elapsed
		r.draw()
	}
}

// End stops showing the current phase: the terminal line is erased (the
// results table is the record) and the plain ticker stops.
// In plain mode a line says that it ended, so a batch log shows every
// phase, however short.
func (r *Reporter) End() {
	r.mu.Lock()
	stop := r.stop
	r.stop = nil
	r.mu.Unlock()
	if stop != nil {
		// The ticker takes r.mu: let it finish before the last line.
		close(stop)
		r.ticker.Wait()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty && r.shown {
		r.write(clearLine)
		r.shown = false
	}
	if !r.tty && r.cur != nil {
		now := r.clock()
		r.write(now.Format("15:04:05") + " " + r.label() + ": ended after " + elapsedText(now.Sub(r.started)) + "\n")
	}
	r.cur = nil
}

// tick prints a plain line every interval until stop is closed.
func (r *Reporter) tick(stop <-chan struct{}) {
	defer r.ticker.Done()
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.mu.Lock()
			// "starting" says nothing new the second time: a phase that
			// has not reported yet is printed once (by Start) until it does.
			if r.cur != nil && !(r.idle && len(r.cur.samples) == 0) {
				r.idle = len(r.cur.samples) == 0
				r.write(r.clock().Format("15:04:05") + " " + r.line() + "\n")
			}
			r.mu.Unlock()
		}
	}
}

// draw repaints the terminal line; r.mu is held.
func (r *Reporter) draw() {
	r.write(clearLine + r.line())
	r.shown = true
}

// line is the text of the current phase's progress; r.mu is held.
func (r *Reporter) line() string { return r.label() + ": " + r.cur.summary() }

// label names the current phase; r.mu is held.
func (r *Reporter) label() string {
	var b strings.Builder
	if r.prefix != "" {
		b.WriteString(r.prefix + " ")
	}
	b.WriteString(r.cur.name)
	if r.cur.iteration > 1 {
		fmt.Fprintf(&b, " (iteration %d)", r.cur.iteration)
	}
	return b.String()
}

// write ignores errors: progress must never fail a job.
func (r *Reporter) write(s string) { _, _ = io.WriteString(r.w, s) }

// Writer wraps w, the writer log lines go to, so that on a terminal a
// log line first erases the progress line and the progress line is
// redrawn under it, instead of the two running into each other.
func (r *Reporter) Writer(w io.Writer) io.Writer { return logWriter{r: r, w: w} }

type logWriter struct {
	r *Reporter
	w io.Writer
}

func (l logWriter) Write(p []byte) (int, error) {
	l.r.mu.Lock()
	defer l.r.mu.Unlock()
	if !l.r.shown {
		return l.w.Write(p)
	}
	l.r.write(clearLine)
	n, err := l.w.Write(p)
	l.r.draw()
	return n, err
}
