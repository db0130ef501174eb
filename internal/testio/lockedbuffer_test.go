package testio

import (
	"strings"
	"sync"
	"testing"
)

func TestLockedBufferKeepsConcurrentWrites(t *testing.T) {
	var b LockedBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("ab"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := b.String(); len(got) != 1600 || strings.Count(got, "ab") != 800 {
		t.Errorf("%d bytes, %d whole writes; want 1600 and 800", len(got), strings.Count(got, "ab"))
	}
}
