package sshlaunch

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// testServer is an SSH server inside the test: exec requests run under sh
// on this machine with HOME set to a directory of the test, as sshd runs
// them under the login shell. It also forwards direct-tcpip channels, so it
// can serve as a ProxyJump host.
type testServer struct {
	t        *testing.T
	addr     string
	port     int
	home     string
	hostKey  ssh.Signer
	userKey  ssh.Signer // the one key it accepts
	keyFile  string     // userKey's private key file
	known    string     // a known_hosts file naming this server
	ln       net.Listener
	conns    atomic.Int32 // TCP connections accepted
	noSignal bool         // ignore signal requests, as old OpenSSH does
	path     string       // PATH for its commands; "" keeps this process's
	offered  atomic.Int32 // public keys offered by clients
	// gate, when set, is called with each command before it starts and
	// may hold it, so a test can make sessions overlap.
	gate atomic.Pointer[func(command string)]

	mu       sync.Mutex
	commands []string
	// running counts exec requests from their arrival (a gate may hold
	// one) to their command's end, and procs are their commands, so the
	// test's cleanup can wait for them: a command released from its gate
	// as the test ends once wrote into the server's home while the test's
	// temporary directories were removed ("directory not empty").
	running sync.WaitGroup
	procs   []*exec.Cmd
	ended   bool // set (under mu) before waitCommands waits
}

// waitCommands waits for every command the server started to end, killing
// their process groups if they outlast a minute (a command still waiting
// on a client that never closes), and fails the test then.
func (s *testServer) waitCommands(t *testing.T) {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	ended := make(chan struct{})
	go func() { s.running.Wait(); close(ended) }()
	select {
	case <-ended:
		return
	case <-time.After(time.Minute):
	}
	s.mu.Lock()
	for _, c := range s.procs {
		if c.Process != nil {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		}
	}
	s.mu.Unlock()
	<-ended
	t.Errorf("test server: commands still running a minute after the test ended (killed)")
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	_, priv := newKey(t)
	return newTestServerFor(t, priv)
}

// newTestServerFor is a server that accepts the given key, also written
// to keyFile.
func newTestServerFor(t *testing.T, userPriv ed25519.PrivateKey) *testServer {
	t.Helper()
	s := &testServer{t: t, home: t.TempDir()}
	s.hostKey, _ = newKey(t)
	var err error
	if s.userKey, err = ssh.NewSignerFromKey(userPriv); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s.keyFile = writeKeyFile(t, dir, "id_test", userPriv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	s.addr = ln.Addr().String()
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.known = filepath.Join(dir, "known_hosts")
	line := "[127.0.0.1]:" + strconv.Itoa(s.port) + " " + string(ssh.MarshalAuthorizedKey(s.hostKey.PublicKey()))
	if err := os.WriteFile(s.known, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	// After the temporary directories' cleanups were registered, so it
	// runs before them: nothing may write into them as they go.
	t.Cleanup(func() { ln.Close(); s.waitCommands(t) })
	go s.serve()
	return s
}

// newKey makes an ed25519 key pair.
func newKey(t *testing.T) (ssh.Signer, ed25519.PrivateKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, priv
}

// writeKeyFile stores a private key as OpenSSH does, mode 0600.
func writeKeyFile(t *testing.T, dir, name string, priv ed25519.PrivateKey) string {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var errUnknownKey = errors.New("key not authorized")

func (s *testServer) serve() {
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			s.offered.Add(1)
			if string(key.Marshal()) == string(s.userKey.PublicKey().Marshal()) {
				return nil, nil
			}
			return nil, errUnknownKey
		},
	}
	cfg.AddHostKey(s.hostKey)
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.conns.Add(1)
		go s.handle(c, cfg)
	}
}

func (s *testServer) handle(c net.Conn, cfg *ssh.ServerConfig) {
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		c.Close()
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs) // keepalives get a reply (a refusal) as from OpenSSH
	for nc := range chans {
		switch nc.ChannelType() {
		case "session":
			ch, creqs, err := nc.Accept()
			if err == nil {
				go s.session(ch, creqs)
			}
		case "direct-tcpip":
			go forward(nc)
		default:
			nc.Reject(ssh.UnknownChannelType, "no")
		}
	}
}

// forward serves a ProxyJump hop: a TCP connection to the requested place.
func forward(nc ssh.NewChannel) {
	var req struct {
		Host     string
		Port     uint32
		OrigHost string
		OrigPort uint32
	}
	if err := ssh.Unmarshal(nc.ExtraData(), &req); err != nil {
		nc.Reject(ssh.ConnectionFailed, err.Error())
		return
	}
	conn, err := net.Dial("tcp", net.JoinHostPort(req.Host, strconv.Itoa(int(req.Port))))
	if err != nil {
		nc.Reject(ssh.ConnectionFailed, err.Error())
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		conn.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	go func() { io.Copy(conn, ch); conn.Close() }()
	io.Copy(ch, conn)
	ch.Close()
}

// session runs one exec request and reports its end.
func (s *testServer) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	var cmd *exec.Cmd
	for req := range reqs {
		switch req.Type {
		case "exec":
			var p struct{ Command string }
			if cmd != nil || ssh.Unmarshal(req.Payload, &p) != nil {
				req.Reply(false, nil)
				continue
			}
			s.mu.Lock()
			if s.ended {
				// The test is over: its cleanup waits, and an Add now
				// would race with that Wait.
				s.mu.Unlock()
				req.Reply(false, nil)
				return
			}
			s.running.Add(1)
			s.commands = append(s.commands, p.Command)
			s.mu.Unlock()
			if g := s.gate.Load(); g != nil {
				(*g)(p.Command)
			}
			cmd = exec.Command("sh", "-c", p.Command)
			cmd.Env = append(os.Environ(), "HOME="+s.home)
			if s.path != "" {
				cmd.Env = append(cmd.Env, "PATH="+s.path)
			}
			cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			in, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				s.running.Done()
				req.Reply(false, nil)
				return
			}
			s.mu.Lock()
			s.procs = append(s.procs, cmd)
			s.mu.Unlock()
			req.Reply(true, nil)
			// sshd closes the command's input when the client sends EOF.
			go func() { io.Copy(in, ch); in.Close() }()
			go func() {
				defer s.running.Done()
				cmd.Wait()
				sendExit(ch, cmd.ProcessState)
				ch.Close()
			}()
		case "signal":
			var p struct{ Signal string }
			if !s.noSignal && cmd != nil && ssh.Unmarshal(req.Payload, &p) == nil {
				if sig := signalNamed(p.Signal); sig != 0 {
					syscall.Kill(-cmd.Process.Pid, sig)
				}
			}
			if req.WantReply {
				req.Reply(false, nil)
			}
		default:
			if req.WantReply {
				req.Reply(false, nil)
			}
		}
	}
}

func signalNamed(name string) syscall.Signal {
	switch name {
	case "TERM":
		return syscall.SIGTERM
	case "KILL":
		return syscall.SIGKILL
	case "INT":
		return syscall.SIGINT
	}
	return 0
}

func sendExit(ch ssh.Channel, st *os.ProcessState) {
	ws := st.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		name := "KILL"
		for _, n := range []string{"TERM", "INT"} {
			if signalNamed(n) == ws.Signal() {
				name = n
			}
		}
		msg := struct {
			Signal     string
			CoreDumped bool
			Error      string
			Lang       string
		}{Signal: name}
		ch.SendRequest("exit-signal", false, ssh.Marshal(&msg))
		return
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(ws.ExitStatus()))
	ch.SendRequest("exit-status", false, b[:])
}

func (s *testServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}
