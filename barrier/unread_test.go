package barrier

import (
	"net"
	"testing"
	"time"
)

// acceptedPair returns the coordinator's side of a fresh loopback
// connection, and the client's side, after the client has written hello
// (nothing when hello is empty) and the bytes wait unread.
func acceptedPair(t *testing.T, ln net.Listener, hello []byte) net.Conn {
	t.Helper()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Close() })
	if len(hello) == 0 {
		return server
	}
	if _, err := client.Write(hello); err != nil {
		t.Fatal(err)
	}
	// Loopback delivers at once; the deadline only catches a hang.
	deadline := time.Now().Add(30 * time.Second)
	for unread(server) != len(hello) {
		if time.Now().After(deadline) {
			t.Fatalf("unread = %d, want %d", unread(server), len(hello))
		}
		time.Sleep(time.Millisecond)
	}
	return server
}

// The connection chosen for eviction is the oldest that has sent nothing:
// a rank's Hello waiting to be read outlives a newer idle connection of
// the same address, and only when every one has sent something does the
// oldest of all go.
func TestEvictionSparesAWaitingHello(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	base := time.Now()
	rank := acceptedPair(t, ln, []byte{0, 0, 0, 3, msgHello, '{', '}'})
	idle := acceptedPair(t, ln, nil)
	other := acceptedPair(t, ln, nil)
	pending := map[net.Conn]pendingConn{
		rank:  {src: "127.0.0.1", at: base},
		idle:  {src: "127.0.0.1", at: base.Add(time.Second)},
		other: {src: "10.0.0.9", at: base.Add(-time.Hour)},
	}
	if got := oldestOf(pending, "127.0.0.1", unread); got != idle {
		t.Fatalf("evicting %v, want the idle connection %v (the rank's Hello waits unread)", got.RemoteAddr(), idle.RemoteAddr())
	}
	busy := acceptedPair(t, ln, []byte{1, 2, 3})
	delete(pending, idle)
	pending[busy] = pendingConn{src: "127.0.0.1", at: base.Add(time.Second)}
	if got := oldestOf(pending, "127.0.0.1", unread); got != rank {
		t.Fatalf("every connection has sent bytes: evicting %v, want the oldest %v", got.RemoteAddr(), rank.RemoteAddr())
	}
	if unread(idle) != 0 {
		t.Fatalf("an idle connection has %d bytes waiting", unread(idle))
	}
}
