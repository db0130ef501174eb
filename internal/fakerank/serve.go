package fakerank

import (
	"io"
	"sync"
	"testing"
)

// Member is what a fake rank needs of its session with the coordinator:
// the requests, a way to answer each, and an end.
type Member[R any] interface {
	Requests() <-chan R
	Reply(r R, body any, err error) error
	Close() error
}

// Handler answers one request on a rank: a body, or an error the
// coordinator sees as that rank's failure.
type Handler[R any] func(rank int, r R) (any, error)

// Serve answers m's requests with h, each in its own goroutine, until the
// session ends. The test's cleanup closes m and waits for every handler,
// so no goroutine of the rank outlives the test.
func Serve[R any](t testing.TB, m Member[R], rank int, h Handler[R]) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for r := range m.Requests() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body, err := h(rank, r)
				_ = m.Reply(r, body, err)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = m.Close()
		wg.Wait()
	})
}

// DialAll dials ranks 0..n-1 concurrently, as real nodes would, and
// returns their members in rank order. If any dial fails, the members
// that did join are closed and the test fails.
func DialAll[M io.Closer](t testing.TB, n int, dial func(rank int) (M, error)) []M {
	t.Helper()
	ms := make([]M, n)
	ok := make([]bool, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := dial(r)
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
				return
			}
			ms[r], ok[r] = m, true
		}()
	}
	wg.Wait()
	if t.Failed() {
		for r, m := range ms {
			if ok[r] {
				_ = m.Close()
			}
		}
		t.FailNow()
	}
	return ms
}
