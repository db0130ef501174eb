// Command intruder plays a hostile process on a cluster node against a
// running coordinator's port, for the SSH cluster tests: it sends garbage,
// an oversized frame, a Hello that is not ioswarm's, a Hello of the first
// protocol version, Hellos of the current version for this job and for
// another one with a guessed proof, and then holds many idle connections.
// It prints one line per attempt saying how the coordinator answered; the
// test reads those lines. With -flood D it instead opens and closes
// connections as fast as it can for D, holding some idle, and prints how
// many it made. It speaks the wire format of ioswarm/barrier from its
// documentation, without importing it, as a stranger would.
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
	Magic      string `json:"magic,omitempty"`
	Version    int    `json:"version,omitempty"`
	JobID      string `json:"job_id"`
	Rank       int    `json:"rank"`
	Host       string `json:"host"`
	BinaryHash string `json:"binary_hash"`
	Nonce      []byte `json:"nonce"`
}

// helloV2 is a version-2 Hello body: magic, version, a MAC (guessed: the
// secret is unknown) and the fields.
func helloV2(h hello) []byte {
	b := append([]byte("IOSWARM"), 0, 2)
	b = append(b, random(32)...)
	return append(b, mustJSON(h)...)
}

func main() {
	addr := flag.String("addr", "", "the coordinator's address")
	job := flag.String("job", "", "the job ID, as a rank's command line shows it")
	hash := flag.String("hash", "", "the binary's SHA-256")
	rank := flag.Int("rank", 0, "a rank that has joined")
	idle := flag.Int("idle", 100, "idle connections to hold")
	hold := flag.Duration("hold", 7*time.Second, "how long to hold them")
	floodFor := flag.Duration("flood", 0, "flood the port for this long instead")
	flag.Parse()
	if *floodFor > 0 {
		fmt.Printf("RESULT flood: %d connections\n", flood(*addr, *floodFor))
		return
	}
	h := hello{JobID: *job, Rank: *rank, Host: "intruder", BinaryHash: *hash, Nonce: random(32)}
	v1 := h
	v1.Magic, v1.Version = "IOSWARM", 1
	foreign := h
	foreign.JobID = "000000000000"
	attempts := []struct {
		name string
		send []byte
	}{
		{"garbage", []byte("GET / HTTP/1.1\r\nHost: coordinator\r\n\r\n")},
		{"oversized", []byte{0xff, 0xff, 0xff, 0xff, msgHello}},
		{"bad-magic", frame(msgHello, mustJSON(hello{Magic: "HTTP/1.1", Version: 1}))},
		{"version-1", frame(msgHello, mustJSON(v1))},
		{"guessed-proof", append(frame(msgHello, helloV2(h)), frame(msgProof, random(32))...)},
		{"foreign-job", frame(msgHello, helloV2(foreign))},
	}
	for _, a := range attempts {
		fmt.Printf("RESULT %s: %s\n", a.name, attempt(*addr, a.send))
	}
	fmt.Printf("RESULT idle: %s\n", holdIdle(*addr, *idle, *hold))
}

// flood connects to addr from several goroutines until d has passed: most
// connections are closed at once, some send a frame that is no Hello, and
// some are held idle (a window of the latest 32 per goroutine).
//
// The flood resets the connections it ends (SO_LINGER 0) and lets the
// coordinator end those that sent a frame, so that no connection leaves
// this node in TIME_WAIT. Closed the usual way, thousands a second to one
// address used up the node's ephemeral ports within seconds, and a rank on
// the same node then failed to connect at all ("cannot assign requested
// address"): the flood starving its own node, not the coordinator.
func flood(addr string, d time.Duration) int {
	end := time.Now().Add(d)
	var mu sync.Mutex
	made := 0
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var held []net.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for time.Now().Before(end) {
				conn, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
				if err != nil {
					time.Sleep(time.Millisecond) // the port is closed between runs
					continue
				}
				mu.Lock()
				made++
				mu.Unlock()
				_ = conn.(*net.TCPConn).SetLinger(0)
				switch g {
				case 0:
					held = append(held, conn)
					if len(held) > 32 {
						held[0].Close()
						held = held[1:]
					}
				case 1:
					// Wait for the coordinator's refusal, so the frame is
					// read before the connection goes, and the coordinator
					// closes first.
					_, _ = conn.Write([]byte{0, 0, 0, 2, msgProof, 0})
					_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
					_, _ = io.Copy(io.Discard, conn)
					conn.Close()
				default:
					conn.Close()
				}
			}
		}()
	}
	wg.Wait()
	return made
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
