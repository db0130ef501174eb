// Command intruder plays a hostile process on a cluster node against a
// running coordinator's port, for the SSH cluster tests: it sends garbage,
// an oversized frame, a Hello that is not ioswarm's, a Hello for another
// job, a replayed rank handshake, and then holds many idle connections.
// It prints one line per attempt saying how the coordinator answered; the
// test reads those lines. It speaks the wire format of ioswarm/barrier
// from its documentation, without importing it, as a stranger would.
package main

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Frame types of the barrier protocol.
const (
	msgHello  = 1
	msgProof  = 3
	msgReject = 5
)

type hello struct {
	Magic      string `json:"magic"`
	Version    int    `json:"version"`
	JobID      string `json:"job_id"`
	Rank       int    `json:"rank"`
	Host       string `json:"host"`
	BinaryHash string `json:"binary_hash"`
	Nonce      []byte `json:"nonce"`
}

func main() {
	addr := flag.String("addr", "", "the coordinator's address")
	job := flag.String("job", "", "the job ID, as a rank's command line shows it")
	hash := flag.String("hash", "", "the binary's SHA-256")
	rank := flag.Int("rank", 0, "a rank that has joined")
	idle := flag.Int("idle", 100, "idle connections to hold")
	hold := flag.Duration("hold", 7*time.Second, "how long to hold them")
	flag.Parse()
	h := hello{Magic: "IOSWARM", Version: 1, JobID: *job, Rank: *rank, Host: "intruder", BinaryHash: *hash, Nonce: random(32)}
	foreign := h
	foreign.JobID = "000000000000"
	attempts := []struct {
		name string
		send []byte
	}{
		{"garbage", []byte("GET / HTTP/1.1\r\nHost: coordinator\r\n\r\n")},
		{"oversized", []byte{0xff, 0xff, 0xff, 0xff, msgHello}},
		{"bad-magic", frame(msgHello, mustJSON(hello{Magic: "HTTP/1.1", Version: 1}))},
		{"foreign-job", frame(msgHello, mustJSON(foreign))},
		{"replay", append(frame(msgHello, mustJSON(h)), frame(msgProof, random(32))...)},
	}
	for _, a := range attempts {
		fmt.Printf("RESULT %s: %s\n", a.name, attempt(*addr, a.send))
	}
	fmt.Printf("RESULT idle: %s\n", holdIdle(*addr, *idle, *hold))
}

// attempt sends b on a fresh connection and says how the coordinator
// answered: a reject frame's message, or that it hung up.
func attempt(addr string, b []byte) string {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(b); err != nil {
		return "write: " + err.Error()
	}
	var hdr [5]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return closedOr(err)
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if hdr[4] != msgReject || n > 4096 || n == 0 {
		return fmt.Sprintf("answered with frame type %d of %d bytes", hdr[4], n)
	}
	body := make([]byte, n-1)
	if _, err := io.ReadFull(conn, body); err != nil {
		return closedOr(err)
	}
	var r struct{ Message string }
	_ = json.Unmarshal(body, &r)
	return "rejected: " + r.Message
}

// holdIdle opens n connections that send nothing and counts those the
// coordinator closes within hold.
func holdIdle(addr string, n int, hold time.Duration) string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	closed, failed := 0, 0
	for range n {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			failed++
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			_ = conn.SetReadDeadline(time.Now().Add(hold))
			_, err := conn.Read(make([]byte, 1))
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				mu.Lock()
				closed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return fmt.Sprintf("%d of %d closed by the coordinator, %d dials failed", closed, n, failed)
}

func closedOr(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "no answer: " + err.Error()
	}
	return "closed"
}

func frame(typ byte, body []byte) []byte {
	b := make([]byte, 5, 5+len(body))
	binary.BigEndian.PutUint32(b, uint32(len(body)+1))
	b[4] = typ
	return append(b, body...)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return b
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
