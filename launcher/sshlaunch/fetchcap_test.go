package sshlaunch

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/rankproto"
)

// endlessServer accepts one token line per connection and then streams
// bytes until the client hangs up, a little at a time (so that a client
// that does not stop at the size writes megabytes here, not gigabytes).
// It returns its port and how many bytes it has sent.
func endlessServer(t *testing.T) (int, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var sent atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
					return
				}
				chunk := []byte(strings.Repeat("x", 64<<10))
				for {
					n, err := c.Write(chunk)
					sent.Add(int64(n))
					if err != nil {
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, &sent
}

// A copy server that streams without end is cut at the size the launcher
// knows: the fetch ends at once with the SHA-256 mismatch (exit 3), not at
// its time limit (exit 4) with the stream's bytes on the node's disk, and
// nothing is kept.
func TestFetchCutsAnEndlessStreamAtTheSize(t *testing.T) {
	needsStreamTools(t)
	if _, err := exec.LookPath("head"); err != nil {
		t.Skip("head is not installed here")
	}
	home := t.TempDir()
	port, sent := endlessServer(t)
	const size = 256 << 10
	want := sha256Hex([]byte("the real binary"))
	line := rankproto.FetchCommand(want, "127.0.0.1", port, false, 30*time.Second, size)
	_, errOut, err := runUnderSh(t, home, line, []byte(strings.Repeat("t", 32)+"\n"))
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Fatalf("fetch from an endless stream: %v (stderr %q); want exit 3, the copy refused by its hash", err, errOut)
	}
	if !strings.Contains(errOut, "the copy has sha256 "+sha256Hex([]byte(strings.Repeat("x", size)))) {
		t.Errorf("stderr %q: want the hash of exactly the first %d bytes", errOut, size)
	}
	t.Logf("the server sent %d bytes before the fetch hung up", sent.Load())
	assertNoTemp(t, home+"/"+rankproto.CacheDir(want))
}
