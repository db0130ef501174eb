package sshlaunch

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"ioswarm/internal/testio"
	"ioswarm/launcher"
	"ioswarm/rankproto"
)

// fakeRank stands in for the ioswarm binary on the test server. As a rank
// it reads the secret line, says so on stderr (and in $HOME/secrets) and
// waits for its input to end, like the real rank; "stubborn" ignores its input and SIGTERM,
// "sleepy" ignores only its input. Asked to serve its copy, it answers
// with the port in $HOME/serveport (0 without one) and serves nothing; it
// says on stderr when it is asked to serve and to stop.
// Any other command prints its arguments.
const fakeRank = `#!/bin/sh
if [ "$1" = rank ]; then
	read secret
	echo "secret $secret, args $*" >&2
	echo "secret=$secret" >>"$HOME/secrets"
	case "$2" in
	stubborn) trap '' TERM; exec sleep 600 ;;
	sleepy) exec sleep 600 ;;
	esac
	while read -r l; do
		case $l in
		"serve "*) p=0; read -r p <"$HOME/serveport"; echo "serving $p"; echo "asked to serve" >&2 ;;
		unserve) echo "asked to unserve" >&2 ;;
		esac
	done
	echo "input ended" >&2
	exit 0
fi
if [ "$1" = fail ]; then echo "no good" >&2; exit 4; fi
if [ "$1" = echo ]; then exec cat; fi
echo "ran $*"
`

func writeFakeRank(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ioswarm")
	if err := os.WriteFile(p, []byte(fakeRank), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func thisUname(t *testing.T) string {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// testSSH is a launcher aimed at s with an ssh_config that knows its host
// key, and no agent or key files of the user running the test.
func testSSH(t *testing.T, s *testServer, bin string, log *testio.LockedBuffer) *SSH {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config")
	text := fmt.Sprintf("Host *\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n", s.known)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	l := &SSH{Binary: bin, Identities: []string{s.keyFile}, ConfigFiles: []string{cfg},
		Home: t.TempDir(), LocalUser: "tester", ConnectTimeout: 5 * time.Second, Fanout: 4,
		Log: launcher.NewLineWriter(log), Grace: 400 * time.Millisecond}
	t.Cleanup(func() { l.Close() })
	return l
}

func sshTarget(s *testServer, rank int) launcher.Target {
	return launcher.Target{Rank: rank, Host: "127.0.0.1", Port: s.port}
}

func mustPrepare(t *testing.T, l *SSH, targets ...launcher.Target) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addrs, err := l.Prepare(ctx, targets)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return addrs
}

// ran counts the commands s was asked to run that contain part.
func ran(s *testServer, part string) int {
	n := 0
	for _, c := range s.seen() {
		if strings.Contains(c, part) {
			n++
		}
	}
	return n
}

// copies counts the copies sent over SSH (the copy script's cat).
func copies(s *testServer) int { return ran(s, "cat >") }

// holdProbesUntil holds every probe of the cache on s until n have
// arrived, so that n nodes' probes overlap; a probe still alone after 10 s
// goes on and the test fails on what it then sees.
func holdProbesUntil(t *testing.T, s *testServer, n int) {
	t.Helper()
	var mu sync.Mutex
	arrived, all := 0, make(chan struct{})
	g := func(command string) {
		if !strings.Contains(command, rankproto.ScriptText("lib/cachetag.sh")) {
			return
		}
		mu.Lock()
		if arrived++; arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			mu.Lock()
			t.Errorf("only %d of %d probes arrived within 10 s", arrived, n)
			mu.Unlock()
		}
	}
	s.gate.Store(&g)
}

// A first launcher copies the binary; a second finds the copy, checks its
// hash and copies nothing: the file keeps its modification time.
func TestSSHCopiesOnceThenUsesVerifiedCache(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	var log1, log2 testio.LockedBuffer
	addrs := mustPrepare(t, testSSH(t, s, bin, &log1), sshTarget(s, 0))
	if len(addrs) != 1 || addrs[0] != "127.0.0.1" {
		t.Errorf("addresses %v, want this end of the connection (127.0.0.1)", addrs)
	}
	b, _ := inspectBinary(bin, "")
	cached := filepath.Join(s.home, rankproto.CacheDir(b.hash), "ioswarm")
	st1, err := os.Stat(cached)
	if err != nil {
		t.Fatalf("no copy in the cache: %v; log:\n%s", err, log1.String())
	}
	if copies(s) != 1 || !strings.Contains(log1.String(), "copied to 1, already cached on 0") {
		t.Fatalf("first run: %d copies, log %q", copies(s), log1.String())
	}
	past := st1.ModTime().Add(-time.Hour)
	os.Chtimes(cached, past, past) // so a rewrite could not keep the same mtime by chance
	mustPrepare(t, testSSH(t, s, bin, &log2), sshTarget(s, 0))
	if copies(s) != 1 || !strings.Contains(log2.String(), "copied to 0, already cached on 1") {
		t.Errorf("second run copied again: %d copies, log %q", copies(s), log2.String())
	}
	if st2, err := os.Stat(cached); err != nil || !st2.ModTime().Equal(past) {
		t.Errorf("the cached copy was rewritten (mtime %v, want %v; %v)", st2.ModTime(), past, err)
	}
}

// A cached file whose hash does not verify is replaced, never used.
func TestSSHReplacesTamperedCache(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	mustPrepare(t, testSSH(t, s, bin, &testio.LockedBuffer{}), sshTarget(s, 0))
	b, _ := inspectBinary(bin, "")
	cached := filepath.Join(s.home, rankproto.CacheDir(b.hash), "ioswarm")
	if err := os.WriteFile(cached, []byte("#!/bin/sh\necho tampered\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var log testio.LockedBuffer
	mustPrepare(t, testSSH(t, s, bin, &log), sshTarget(s, 0))
	if got, _ := os.ReadFile(cached); string(got) != fakeRank {
		t.Errorf("cache holds %q after the run, want the real binary", got)
	}
	if copies(s) != 2 || !strings.Contains(log.String(), "replacing it") {
		t.Errorf("%d copies, log %q; want a second copy and a warning", copies(s), log.String())
	}
}

// A dynamically linked build is refused before any node is contacted,
// unless the nodes have a binary of their own.
func TestSSHRefusesDynamicBuild(t *testing.T) {
	s := newTestServer(t)
	l := testSSH(t, s, fakeELF(t, elf.EM_X86_64, true), &testio.LockedBuffer{})
	_, err := l.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)})
	if !errors.Is(err, errDynamicBuild) || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("Prepare: %v, want the dynamic-link refusal", err)
	}
	if n := s.conns.Load(); n != 0 {
		t.Errorf("%d connections made for a binary that cannot travel", n)
	}
	l2 := testSSH(t, s, fakeELF(t, elf.EM_X86_64, true), &testio.LockedBuffer{})
	l2.RemoteBin = writeFakeRank(t)
	if _, err := l2.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)}); err == nil ||
		!strings.Contains(err.Error(), "another build") {
		t.Errorf("--remote-bin of a different build: %v, want a hash mismatch", err)
	}
}

func TestSSHRefusesOtherArchitecture(t *testing.T) {
	s := newTestServer(t)
	other := elfMachineNot(thisUname(t))
	l := testSSH(t, s, fakeELF(t, other, false), &testio.LockedBuffer{})
	_, err := l.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)})
	var he launcher.HostErrors
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "the node is "+thisUname(t)) ||
		!strings.Contains(err.Error(), "host 127.0.0.1") {
		t.Fatalf("Prepare: %v, want the architecture named with the host", err)
	}
	if copies(s) != 0 {
		t.Error("a binary of another architecture was copied")
	}
}

func TestSSHUnknownAndChangedHostKeys(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	fp := fingerprint(s.hostKey.PublicKey())
	os.WriteFile(s.known, nil, 0o600)
	_, err := testSSH(t, s, bin, &testio.LockedBuffer{}).Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)})
	if err == nil || !strings.Contains(err.Error(), "not known") || !strings.Contains(err.Error(), fp) ||
		!strings.Contains(err.Error(), "host 127.0.0.1") {
		t.Errorf("unknown key: %v; want host and fingerprint %s", err, fp)
	}
	other, _ := newKey(t)
	line := fmt.Sprintf("[127.0.0.1]:%d %s", s.port, authorized(other.PublicKey()))
	os.WriteFile(s.known, []byte(line), 0o600)
	_, err = testSSH(t, s, bin, &testio.LockedBuffer{}).Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)})
	if err == nil || !strings.Contains(err.Error(), "HAS CHANGED") || !strings.Contains(err.Error(), fp) ||
		!strings.Contains(err.Error(), fingerprint(other.PublicKey())) {
		t.Errorf("changed key: %v; want both fingerprints", err)
	}
	if len(s.seen()) != 0 {
		t.Errorf("commands ran on a host whose key was refused: %q", s.seen())
	}
}

// A node that accepts TCP but never speaks fails within the connect
// timeout, named; the other node is ready all the same.
func TestSSHConnectTimeoutNamesTheNode(t *testing.T) {
	s := newTestServer(t)
	silent := blackHole(t)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	l.ConnectTimeout = 300 * time.Millisecond
	// How long readying the good node alone takes now: the bound below
	// grows with it, as load (or -race) slows every SSH handshake.
	begin := time.Now()
	if _, err := l.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0)}); err != nil {
		t.Fatalf("Prepare of the good node alone: %v", err)
	}
	alone := time.Since(begin)
	begin = time.Now()
	_, err := l.Prepare(context.Background(), []launcher.Target{sshTarget(s, 0), {Rank: 1, Host: "127.0.0.1", Port: silent}})
	took := time.Since(begin)
	var he launcher.HostErrors
	if !errors.As(err, &he) || len(he) != 1 || he[0].Rank != 1 || !strings.Contains(err.Error(), "--connect-timeout") {
		t.Fatalf("Prepare: %v, want rank 1 alone failing at the connect timeout", err)
	}
	if bound := 5*time.Second + 2*alone; took > bound {
		t.Errorf("took %v with a 300ms connect timeout (readying the good node alone took %v)", took, alone)
	}
	if _, err := l.Exec(context.Background(), sshTarget(s, 0), []string{"x"}); err != nil {
		t.Errorf("the good node is not ready: %v", err)
	}
}

// elfMachineNot picks an architecture other than this kernel's.
func elfMachineNot(uname string) elf.Machine {
	if uname == "aarch64" {
		return elf.EM_X86_64
	}
	return elf.EM_AARCH64
}

func fingerprint(k ssh.PublicKey) string { return ssh.FingerprintSHA256(k) }

func authorized(k ssh.PublicKey) string { return string(ssh.MarshalAuthorizedKey(k)) }

// blackHole accepts TCP connections and never answers: a node whose sshd
// hangs, or a link that drops everything after the handshake of TCP.
func blackHole(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// The stamp that lets a node skip re-hashing must not let through a copy
// rewritten in place with the same size and its old modification time:
// the change time still moves, so the node hashes again and the copy is
// replaced.
func TestSSHStampCatchesSameSizeRewrite(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	mustPrepare(t, testSSH(t, s, bin, &testio.LockedBuffer{}), sshTarget(s, 0))
	b, _ := inspectBinary(bin, "")
	cached := filepath.Join(s.home, rankproto.CacheDir(b.hash), "ioswarm")
	name, _ := os.ReadFile("/proc/sys/kernel/hostname")
	stamp, err := os.ReadFile(cached + ".verified." + strings.TrimSpace(string(name)))
	if err != nil || !strings.HasPrefix(string(stamp), b.hash+" ") {
		t.Fatalf("no stamp of the verified copy: %q, %v", stamp, err)
	}
	st, _ := os.Stat(cached)
	evil := []byte(strings.Repeat("x", int(st.Size())))
	copy(evil, "#!/bin/sh\necho tampered\n#")
	if err := os.WriteFile(cached, evil, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(cached, st.ModTime(), st.ModTime())
	var log testio.LockedBuffer
	mustPrepare(t, testSSH(t, s, bin, &log), sshTarget(s, 0))
	if got, _ := os.ReadFile(cached); string(got) != fakeRank {
		t.Fatalf("a same-size rewrite with the old mtime was trusted; log %q", log.String())
	}
	if copies(s) != 2 {
		t.Errorf("%d copies, want the tampered copy replaced", copies(s))
	}
}

// Two nodes whose homes are one directory (two logins to one server here)
// get one copy between them: the second waits for the first's copy and
// has it verified, and the log says so.
func TestSSHSharedHomeGetsOneCopy(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	var log testio.LockedBuffer
	a, b := sshTarget(s, 0), sshTarget(s, 1)
	a.User, b.User = "alice", "bob" // two logins, so two nodes to the launcher
	// Both probes must find the cache empty, as on two real nodes probed
	// at once: a probe made after the other login's copy was verified
	// would find it cached instead (one hostname here stamps both).
	holdProbesUntil(t, s, 2)
	mustPrepare(t, testSSH(t, s, bin, &log), a, b)
	s.gate.Store(nil)
	if copies(s) != 1 || !strings.Contains(log.String(),
		"copied to 1, already cached on 0, found in a home shared with a node copied to on 1") {
		t.Errorf("%d copies for two nodes sharing a home; log %q", copies(s), log.String())
	}
	// Each node leaves the copy verified for itself: the next launch
	// copies nothing.
	var again testio.LockedBuffer
	mustPrepare(t, testSSH(t, s, bin, &again), a, b)
	if copies(s) != 1 || !strings.Contains(again.String(), "copied to 0, already cached on 2") {
		t.Errorf("second launch: %d copies in all; log %q", copies(s), again.String())
	}
}

// Starting ranks on two cold nodes that share a home, the node that
// waits for the other's copy probes it again in its own quick start's
// session, and its rank starts there: three sessions in all (two quick
// starts and the copy), no probe of its own.
func TestSSHSharedHomeReprobesInTheHeldSession(t *testing.T) {
	s := newTestServer(t)
	bin := writeFakeRank(t)
	var log testio.LockedBuffer
	a, b := sshTarget(s, 0), sshTarget(s, 1)
	a.User, b.User = "alice", "bob"
	holdProbesUntil(t, s, 2)
	l := testSSH(t, s, bin, &log)
	spec := func(launcher.Target, string) ([]string, []byte) { return []string{"--job", "h"}, []byte("c0ffee\n") }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	procs, err := l.PrepareStart(ctx, []launcher.Target{a, b}, spec)
	s.gate.Store(nil)
	if err != nil {
		t.Fatalf("PrepareStart: %v", err)
	}
	for _, p := range procs {
		t.Cleanup(p.Stop)
	}
	waitLog(t, &log, "[127.0.0.1 rank 0] secret c0ffee")
	waitLog(t, &log, "[127.0.0.1 rank 1] secret c0ffee")
	if n := len(s.seen()); n != 3 || copies(s) != 1 || ran(s, "echo probe") != 2 {
		t.Errorf("%d sessions: %d quick starts, %d copies; want two quick starts and one copy", n, ran(s, "echo probe"), copies(s))
	}
	if !strings.Contains(log.String(), "copied to 1, already cached on 0, found in a home shared with a node copied to on 1") {
		t.Errorf("log does not say the second node used the shared copy:\n%s", log.String())
	}
}
