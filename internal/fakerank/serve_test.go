package fakerank

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// chanMember is a member whose requests are ints sent by the test.
type chanMember struct {
	reqs    chan int
	replies chan string
	once    sync.Once
}

func newChanMember() *chanMember {
	return &chanMember{reqs: make(chan int), replies: make(chan string, 8)}
}

func (m *chanMember) Requests() <-chan int { return m.reqs }
func (m *chanMember) Reply(r int, body any, err error) error {
	m.replies <- fmt.Sprintf("%d: %v %v", r, body, err)
	return nil
}
func (m *chanMember) Close() error { m.once.Do(func() { close(m.reqs) }); return nil }

// Serve answers every request with the handler, naming the rank, and
// its cleanup leaves none of its goroutines running.
func TestServeAnswersAndCleansUp(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Run("serve", func(t *testing.T) {
		m := newChanMember()
		Serve(t, m, 3, func(rank, r int) (any, error) {
			if r < 0 {
				return nil, errors.New("negative")
			}
			return rank * r, nil
		})
		m.reqs <- 2
		m.reqs <- -1
		var got []string
		for range 2 {
			select {
			case s := <-m.replies:
				got = append(got, s)
			case <-time.After(30 * time.Second):
				t.Fatal("no reply within 30s")
			}
		}
		slices.Sort(got)
		if want := []string{"-1: <nil> negative", "2: 6 <nil>"}; !slices.Equal(got, want) {
			t.Errorf("replies %q, want %q", got, want)
		}
	})
	NoGoroutinesPast(t, before, 30*time.Second)
}

// DialAll returns the members in rank order, whatever order the dials
// end in.
func TestDialAllKeepsRankOrder(t *testing.T) {
	ms := DialAll(t, 4, func(r int) (*chanMember, error) {
		time.Sleep(time.Duration(4-r) * time.Millisecond) // later ranks first, most of the time
		m := newChanMember()
		m.replies <- fmt.Sprint(r)
		return m, nil
	})
	for r, m := range ms {
		if got := <-m.replies; got != fmt.Sprint(r) {
			t.Errorf("member %d was dialled as rank %s", r, got)
		}
		_ = m.Close()
	}
}

func TestLogCountsAndWaits(t *testing.T) {
	var l Log
	go func() {
		l.Logf("refused %s", "a")
		l.Logf("refused %s", "b")
	}()
	l.WaitFor(t, "refused", 2, 30*time.Second)
	if l.Count("refused a") != 1 || l.Len() != 2 || l.String() != "refused a\nrefused b" {
		t.Errorf("log %q: count %d, len %d", l.String(), l.Count("refused a"), l.Len())
	}
}
