// Package binserve hands one file (this build of ioswarm) to nodes over a
// plain TCP stream: a client sends the token it was given and a newline,
// and receives the file's bytes; the connection then closes. The stream is
// neither encrypted nor authenticated beyond the token: the receiver checks
// the SHA-256 it was told over SSH before it keeps the file, so a stream
// that was cut, altered or served by anyone else is thrown away, and the
// token only keeps strangers from making the server send.
//
// The launcher serves from the coordinator, and nodes that hold a
// verified copy serve it to others while the launch lasts (their rank
// does, or `ioswarm serve-copy` where a node has no rank yet), so that
// copies spread like a tree instead of all leaving the coordinator's
// network link. It imports nothing of the project's.
package binserve

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// MaxClients bounds the streams one server sends at once; the launcher
// assigns fewer, so more only comes from a stranger.
const MaxClients = 8

// tokenWait bounds how long a client may take to send its token, and
// sendWait a whole transfer: a client that stalls holds a slot no longer.
const (
	tokenWait = 10 * time.Second
	sendWait  = 5 * time.Minute
)

// NewToken is a fresh random token: 128 bits in hex.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a copy token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Server sends Path to every client that presents Token.
type Server struct {
	Path  string
	Token string

	ln    net.Listener
	slots chan struct{}
	wg    sync.WaitGroup
}

// Listen opens the server's socket on addr (host:port, port 0 for any)
// and serves until ctx ends or Close; it returns once listening.
func (s *Server) Listen(ctx context.Context, addr string) error {
	if len(s.Token) < 16 {
		return errors.New("copy server: token too short")
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("copy server: %w", err)
	}
	f.Close()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("copy server: %w", err)
	}
	s.ln = ln
	s.slots = make(chan struct{}, MaxClients)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		<-ctx.Done()
		ln.Close()
	}()
	s.wg.Add(1)
	go s.accept(ctx)
	return nil
}

// Port is the port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Close stops accepting; transfers under way end with their deadlines.
func (s *Server) Close() error { return s.ln.Close() }

// Wait waits for the server's goroutines after ctx ended or Close.
func (s *Server) Wait() { s.wg.Wait() }

func (s *Server) accept(ctx context.Context) {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed (no deadline is ever set on the listener)
		}
		select {
		case s.slots <- struct{}{}:
		default:
			c.Close() // more clients than any launch assigns
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			defer c.Close()
			_ = s.send(ctx, c)
		}()
	}
}

// send reads the client's token and, if it is right, the file's bytes go
// out; a wrong token gets nothing.
func (s *Server) send(ctx context.Context, c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(tokenWait))
	line, err := bufio.NewReaderSize(io.LimitReader(c, 128), 128).ReadString('\n')
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(line)), []byte(s.Token)) != 1 {
		return errors.New("wrong token")
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	_ = c.SetDeadline(time.Now().Add(sendWait))
	_, err = io.Copy(c, f) // a TCP socket from a file: sendfile
	return err
}
