package sshlaunch

import (
	"context"
	"crypto/ed25519"
	"encoding/pem"
	"ioswarm/launcher"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"ioswarm/internal/testio"
)

// serveAgent runs an ssh-agent holding keys on a socket of the test.
func serveAgent(t *testing.T, keys ...ed25519.PrivateKey) string {
	t.Helper()
	ring := agent.NewKeyring()
	for _, k := range keys {
		if err := ring.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(ring, c); c.Close() }()
		}
	}()
	return sock
}

// serverWithKey is a test server and the private key it accepts, for the
// test to put in an agent or a protected file.
func serverWithKey(t *testing.T) (*testServer, ed25519.PrivateKey) {
	t.Helper()
	_, priv := newKey(t)
	return newTestServerFor(t, priv), priv
}

func TestSSHLogsInWithAgentKey(t *testing.T) {
	s, priv := serverWithKey(t)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	l.Identities = nil
	l.AgentSocket = serveAgent(t, priv)
	mustPrepare(t, l, sshTarget(s, 0))
}

func TestSSHLogsInWithDefaultKeyFile(t *testing.T) {
	s, priv := serverWithKey(t)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	l.Identities = nil
	dir := filepath.Join(l.Home, ".ssh")
	os.Mkdir(dir, 0o700)
	writeKeyFile(t, dir, "id_ed25519", priv)
	mustPrepare(t, l, sshTarget(s, 0))
}

// A passphrase-protected key is used through the agent that holds it; with
// no agent, the failure says which keys were offered and why one was not.
func TestSSHProtectedKeyNeedsAgent(t *testing.T) {
	s, priv := serverWithKey(t)
	block, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "id_protected")
	os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600)
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("Host *\n  IdentityFile "+keyFile+"\n  IdentitiesOnly yes\n"+
		"  UserKnownHostsFile "+s.known+"\n  GlobalKnownHostsFile /dev/null\n"), 0o600)

	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	l.Identities, l.ConfigFiles = nil, []string{cfg}
	_, err = l.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)})
	if err == nil || !strings.Contains(err.Error(), "no key was accepted") || !strings.Contains(err.Error(), "passphrase") {
		t.Errorf("protected key without agent: %v", err)
	}

	// IdentitiesOnly: the agent also holds an unrelated key, which must not
	// be offered, and the protected key, which is used through it.
	_, other := newKey(t)
	l2 := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	l2.Identities, l2.ConfigFiles = nil, []string{cfg}
	l2.AgentSocket = serveAgent(t, other, priv)
	before := s.offered.Load()
	mustPrepare(t, l2, sshTarget(s, 0))
	if n := s.offered.Load() - before; n != 1 {
		t.Errorf("%d keys offered with IdentitiesOnly, want only the configured one", n)
	}
}

func TestSSHExplicitIdentityMustBeUsable(t *testing.T) {
	s := newTestServer(t)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	bad := filepath.Join(t.TempDir(), "not a key")
	os.WriteFile(bad, []byte("hello"), 0o600)
	l.Identities = []string{bad}
	_, err := l.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)})
	if err == nil || !strings.Contains(err.Error(), "--identity "+bad) {
		t.Errorf("unusable --identity: %v", err)
	}
}
