package sshlaunch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testConfig = `
Host login
    HostName login.example.org
    User alice
    Port 2200
    IdentityFile ~/.ssh/login_key

Host node*
    HostName %h.cluster.internal
    User bench
    ProxyJump login,bob@gate:2022
    IdentityFile %d/.ssh/id_%r
    IdentitiesOnly yes
    UserKnownHostsFile ~/kh1 /etc/kh2
    HostKeyAlias cluster-alias

Host odd
    ProxyCommand ssh -W %h:%p login

Host badport
    Port seventy

Match host matched*
    User viamatch

Host *
    User fallback
`

func testResolver(t *testing.T, sshUser string) *resolver {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, []byte(testConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadSSHConfig([]string{p, "/no/such/file"})
	if err != nil {
		t.Fatal(err)
	}
	return &resolver{cfg: cfg, home: "/home/me", localUser: "me", user: sshUser}
}

func TestResolveAliasHostNameUserPortIdentity(t *testing.T) {
	r := testResolver(t, "")
	rt, err := r.route("login", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	h := rt.Node
	if h.Addr != "login.example.org:2200" || h.User != "alice" || len(rt.Jumps) != 0 {
		t.Errorf("login resolved to %+v", rt)
	}
	if !slices.Equal(h.Identities, []string{"/home/me/.ssh/login_key"}) {
		t.Errorf("identities %v", h.Identities)
	}
	if !slices.Equal(h.KnownHosts, []string{"/home/me/.ssh/known_hosts", "/home/me/.ssh/known_hosts2",
		"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}) {
		t.Errorf("default known hosts %v", h.KnownHosts)
	}
	if h.KeyName != h.Addr {
		t.Errorf("known_hosts name %q, want the HostName %q", h.KeyName, h.Addr)
	}
}

func TestResolveTokensJumpsAndKnownHosts(t *testing.T) {
	r := testResolver(t, "")
	rt, err := r.route("node7", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := rt.Node
	if n.Addr != "node7.cluster.internal:22" || n.User != "bench" || !n.OnlyIDs {
		t.Errorf("node7 resolved to %+v", n)
	}
	if n.KeyName != "cluster-alias:22" {
		t.Errorf("HostKeyAlias gives %q", n.KeyName)
	}
	if !slices.Equal(n.Identities, []string{"/home/me/.ssh/id_bench"}) {
		t.Errorf("identities %v", n.Identities)
	}
	if !slices.Equal(n.KnownHosts, []string{"/home/me/kh1", "/etc/kh2", "/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}) {
		t.Errorf("known hosts %v", n.KnownHosts)
	}
	if len(rt.Jumps) != 2 {
		t.Fatalf("jumps %+v", rt.Jumps)
	}
	if j := rt.Jumps[0]; j.Addr != "login.example.org:2200" || j.User != "alice" {
		t.Errorf("first jump %+v", j)
	}
	if j := rt.Jumps[1]; j.Addr != "gate:2022" || j.User != "bob" {
		t.Errorf("second jump %+v", j)
	}
}

// The host list's user and port beat --ssh-user, which beats the config's
// User, which beats the local login name.
func TestResolvePrecedence(t *testing.T) {
	cases := []struct {
		sshUser, entryUser string
		port               int
		wantUser, wantAddr string
	}{
		{"", "", 0, "alice", "login.example.org:2200"},
		{"ops", "", 0, "ops", "login.example.org:2200"},
		{"ops", "root", 2222, "root", "login.example.org:2222"},
	}
	for _, c := range cases {
		rt, err := testResolver(t, c.sshUser).route("login", c.entryUser, c.port)
		if err != nil {
			t.Fatal(err)
		}
		if rt.Node.User != c.wantUser || rt.Node.Addr != c.wantAddr {
			t.Errorf("ssh-user %q entry %q:%d: got %s@%s, want %s@%s", c.sshUser, c.entryUser, c.port,
				rt.Node.User, rt.Node.Addr, c.wantUser, c.wantAddr)
		}
	}
	// Host lists hold IPv6 addresses without brackets.
	rt, _ := (&resolver{cfg: &sshConfig{}, home: "/h", localUser: "me"}).route("::1", "", 0)
	if rt.Node.User != "me" || rt.Node.Addr != "[::1]:22" {
		t.Errorf("no config: %+v, want me@[::1]:22", rt.Node)
	}
}

func TestResolveMatchHost(t *testing.T) {
	rt, err := testResolver(t, "").route("matched7", "", 0)
	if err != nil || rt.Node.User != "viamatch" {
		t.Errorf("Match host: %+v, %v; want user viamatch", rt.Node, err)
	}
}

func TestResolveRefusesProxyCommandAndBadPort(t *testing.T) {
	r := testResolver(t, "")
	if _, err := r.route("odd", "", 0); err == nil || !strings.Contains(err.Error(), "ProxyJump") {
		t.Errorf("ProxyCommand: %v, want an error pointing at ProxyJump", err)
	}
	if _, err := r.route("badport", "", 0); err == nil || !strings.Contains(err.Error(), "seventy") {
		t.Errorf("bad port: %v", err)
	}
}

func TestConfigThatDoesNotParseIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config")
	os.WriteFile(p, []byte("Match exec \"true\"\n  User x\n"), 0o600)
	if _, err := loadSSHConfig([]string{p}); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("unparsable config: %v, want an error naming %s", err, p)
	}
}

func TestSplitLogin(t *testing.T) {
	cases := []struct {
		in, user, host string
		port           int
	}{
		{"login", "", "login", 0},
		{"bob@gate:2022", "bob", "gate", 2022},
		{"ssh://bob@gate", "bob", "gate", 0},
		{"[fe80::1]:22", "", "fe80::1", 22},
	}
	for _, c := range cases {
		u, h, p, err := splitLogin(c.in)
		if err != nil || u != c.user || h != c.host || p != c.port {
			t.Errorf("splitLogin(%q) = %q %q %d %v", c.in, u, h, p, err)
		}
	}
	if _, _, _, err := splitLogin("gate:99999"); err == nil {
		t.Error("port 99999 accepted")
	}
}
