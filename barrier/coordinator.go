package barrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"ioswarm/clock"
)

// Config is what a coordinator needs to admit and supervise ranks.
type Config struct {
	JobID            string
	Secret           []byte                           // at least MinSecret bytes
	BinaryHash       string                           // hex SHA-256 of the coordinator's binary; ranks must send the same
	Ranks            int                              // ranks expected to join (0..Ranks-1)
	Heartbeat        time.Duration                    // interval of heartbeats both ways; default 500ms
	Timeout          time.Duration                    // silence longer than this from a joined rank fails the job; default 5s
	HandshakeTimeout time.Duration                    // default 5s
	SummaryEvery     time.Duration                    // interval of the per-source lines about refused strangers; default 5s
	Logf             func(format string, args ...any) // refused connections; nil = discard; called from many goroutines
	Debugf           func(format string, args ...any) // joins and failures, for --verbose; nil = discard
	Now              func() int64                     // nil = clock.Now
	// Relay lists note kinds the coordinator sends on to every rank (the
	// sender too) the moment one arrives, without waiting for anyone to
	// read Notes: a rank's word that all ranks must act on at once (see
	// relay.go). Such notes still reach Notes too.
	Relay []string
	// CallLimit bounds a Call of kind (0 or a nil func: unbounded), for
	// calls that should answer at once whatever the job's size.
	CallLimit func(kind string) time.Duration
}

func (cfg Config) normalise() (Config, error) {
	cfg.Heartbeat = durationOr(cfg.Heartbeat, defaultHeartbeat)
	cfg.Timeout = durationOr(cfg.Timeout, defaultTimeout)
	cfg.HandshakeTimeout = durationOr(cfg.HandshakeTimeout, defaultHandshake)
	cfg.SummaryEvery = durationOr(cfg.SummaryEvery, defaultSummary)
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Debugf == nil {
		cfg.Debugf = func(string, ...any) {}
	}
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	switch {
	case cfg.JobID == "":
		return cfg, errors.New("empty job ID")
	case cfg.BinaryHash == "":
		return cfg, errors.New("empty binary hash")
	case cfg.Ranks < 1:
		return cfg, fmt.Errorf("%d ranks expected; need at least 1", cfg.Ranks)
	}
	if err := checkSecret(cfg.Secret); err != nil {
		return cfg, err
	}
	return cfg, checkTimes(cfg.Heartbeat, cfg.Timeout, cfg.HandshakeTimeout)
}

// MemberInfo describes a joined rank.
type MemberInfo struct {
	Rank        int
	Host        string // from the rank's Hello
	Addr        string // remote address
	ClockOffset int64  // rank clock − coordinator clock, ns
	ClockError  int64  // bound on the offset's error, ns
}

// ToRank converts a time on the coordinator's clock to the rank's clock.
func (m MemberInfo) ToRank(t int64) int64 { return t + m.ClockOffset }

// FromRank converts a time on the rank's clock to the coordinator's clock.
func (m MemberInfo) FromRank(t int64) int64 { return t - m.ClockOffset }

// Note is an unsolicited message from a rank (progress, a log line).
type Note struct {
	Rank int
	Kind string
	Body json.RawMessage
}

// Coordinator listens for ranks, admits those that prove the job secret,
// and runs barriers across them. Connections that do not prove it are
// refused, counted by source (Rejected) and summarised in the log. Its methods are safe for concurrent use.
type Coordinator struct {
	cfg  Config
	ln   net.Listener
	life context.Context // ends when Close starts
	stop context.CancelFunc

	mu        sync.Mutex
	members   []*session                // by rank; nil until the rank authenticates
	joined    int                       // members whose clock probe is done
	pending   map[net.Conn]pendingConn  // accepted, secret not yet proved (admit.go)
	bySource  map[string]int            // pending connections by source address
	authing   map[int]net.Conn          // by rank: Hello proved, handshake under way
	seen      map[[macLen]byte]struct{} // MACs of accepted Hellos, against replay
	strangers *strangers
	calls     map[uint64]*pendingCall
	lastCall  uint64
	err       error
	closing   bool
	probeMu   sync.Mutex // one ProbeClocks at a time: probes share each rank's pong channel

	allJoined   chan struct{}
	failed      chan struct{}
	notes       chan Note
	closeOnce   sync.Once
	watcherDone chan struct{}
	wg          sync.WaitGroup // every goroutine but the context watcher
}

// Listen starts a coordinator on addr ("127.0.0.1:0", ":7000"). ctx bounds
// its whole life: when ctx ends the coordinator closes as by Close with an
// abort reason, so ranks stop too.
func Listen(ctx context.Context, addr string, cfg Config) (*Coordinator, error) {
	cfg, err := cfg.normalise()
	if err != nil {
		return nil, fmt.Errorf("coordinator config: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for ranks on %s: %w", addr, err)
	}
	life, stop := context.WithCancel(context.Background())
	c := &Coordinator{
		cfg: cfg, ln: ln, life: life, stop: stop,
		members:     make([]*session, cfg.Ranks),
		pending:     make(map[net.Conn]pendingConn),
		bySource:    make(map[string]int),
		authing:     make(map[int]net.Conn),
		seen:        make(map[[macLen]byte]struct{}),
		strangers:   newStrangers(cfg.Logf, cfg.SummaryEvery),
		calls:       make(map[uint64]*pendingCall),
		allJoined:   make(chan struct{}),
		failed:      make(chan struct{}),
		notes:       make(chan Note, 1024),
		watcherDone: make(chan struct{}),
	}
	c.wg.Add(2)
	go c.acceptLoop()
	go func() {
		defer c.wg.Done()
		c.strangers.run(c.life.Done())
	}()
	go c.watch(ctx)
	return c, nil
}

// watch closes the coordinator when ctx ends. It is outside wg because it
// may run the shutdown itself, which waits for wg.
func (c *Coordinator) watch(ctx context.Context) {
	defer close(c.watcherDone)
	select {
	case <-ctx.Done():
		reason := "coordinator cancelled: " + context.Cause(ctx).Error()
		c.closeOnce.Do(func() { c.shutdown(reason) })
	case <-c.life.Done():
	}
}

// Addr is the address ranks dial.
func (c *Coordinator) Addr() net.Addr { return c.ln.Addr() }

// Notes delivers unsolicited messages from ranks. Reading it is optional:
// when its buffer of 1024 is full, new notes are dropped rather than
// stalling a rank's connection.
func (c *Coordinator) Notes() <-chan Note { return c.notes }

// Failed is closed on the first fatal failure: a joined (authenticated)
// rank's connection lost, silent past Timeout, or breaking the protocol.
func (c *Coordinator) Failed() <-chan struct{} { return c.failed }

// Err returns the first fatal failure (a *RankError), or nil.
func (c *Coordinator) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail records the first fatal failure and closes Failed.
func (c *Coordinator) fail(err error) {
	c.mu.Lock()
	if c.err != nil || c.closing {
		c.mu.Unlock()
		return
	}
	c.err = err
	c.mu.Unlock()
	close(c.failed)
	c.cfg.Debugf("job failed: %v", err)
}

// goTracked starts f as a goroutine Close waits for, unless Close has begun.
func (c *Coordinator) goTracked(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

func (c *Coordinator) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

func (c *Coordinator) acceptLoop() {
	defer c.wg.Done()
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			if c.isClosing() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: back off instead of spinning.
			c.cfg.Logf("accept rank connection: %v", err)
			select {
			case <-c.life.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		c.admit(conn)
	}
}
