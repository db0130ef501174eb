package binserve

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func server(t *testing.T, data []byte) (*Server, context.CancelFunc) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(p, data, 0o700); err != nil {
		t.Fatal(err)
	}
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{Path: p, Token: token}
	if err := s.Listen(ctx, "127.0.0.1:0"); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); s.Wait() })
	return s, cancel
}

// fetch sends token and returns what the server sent before closing.
func fetch(t *testing.T, port int, token string) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, token+"\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(c)
	return got
}

// The right token gets the whole file, every time, several at once; a
// wrong one gets nothing at all.
func TestServerSendsTheFileForTheToken(t *testing.T) {
	data := bytes.Repeat([]byte("ioswarm build "), 300_000) // ~4 MiB
	s, _ := server(t, data)
	results := make(chan []byte, 3)
	for i := 0; i < 3; i++ {
		go func() { results <- fetch(t, s.Port(), s.Token) }()
	}
	for i := 0; i < 3; i++ {
		if got := <-results; !bytes.Equal(got, data) {
			t.Errorf("fetch %d: %d bytes, want the file's %d", i, len(got), len(data))
		}
	}
	if got := fetch(t, s.Port(), s.Token[:len(s.Token)-1]+"x"); len(got) != 0 {
		t.Errorf("a wrong token got %d bytes", len(got))
	}
}

// Once its context ends the server accepts nobody.
func TestServerStopsWithItsContext(t *testing.T) {
	s, cancel := server(t, []byte("x"))
	cancel()
	s.Wait()
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port())), time.Second); err == nil {
		c.Close()
		t.Error("the server still accepts after its context ended")
	}
}

func TestServerRefusesAShortToken(t *testing.T) {
	s := &Server{Path: "/proc/self/exe", Token: "short"}
	if err := s.Listen(context.Background(), "127.0.0.1:0"); err == nil {
		s.Close()
		t.Error("a 5-character token was accepted")
	}
}
