package coordinator

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"ioswarm/launcher"
)

// failingLauncher starts ranks that say why on their standard error and
// exit with an error before they join, as a rank whose proof of the
// secret is refused does.
type failingLauncher struct {
	stubLauncher
	log *launcher.LineWriter
}

func (l *failingLauncher) Start(_ context.Context, t launcher.Target, _ []string, _ []byte) (launcher.Proc, error) {
	l.log.RankLine(t.Host, t.Rank, "ioswarm: joining: the coordinator at 127.0.0.1:1 failed to prove the job secret\x1b[2J")
	return &exitedProc{err: errors.New("exit status 1")}, nil
}

// exitedProc has already ended with err.
type exitedProc struct{ err error }

func (p *exitedProc) Done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}
func (p *exitedProc) Err() error { return p.err }
func (p *exitedProc) Stop()      {}

// A rank that ends before it joins puts its last line into the job's
// error, escaped to one line: the reason it gave (a refused proof, a
// tampered frame) was only in its log before.
func TestRankLastWordsInTheJobsError(t *testing.T) {
	log := launcher.NewLineWriter(io.Discard)
	l := &failingLauncher{log: log}
	launch := Launch{Launcher: l, HeartbeatTimeout: 5 * time.Second, Threads: 1,
		Targets: []launcher.Target{{Rank: 0, Host: "nodeA"}}, JoinTimeout: time.Minute,
		Log: log, Listen: "127.0.0.1:0"}
	err := startError(t, launch, "for a rank that has exited")
	for _, want := range []string{"host nodeA rank 0", "exit status 1", "failed to prove the job secret", `\x1b[2J`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v; want %q in it", err, want)
		}
	}
}
