package rankproto

import (
	"bytes"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseStart(t *testing.T) {
	for _, c := range []struct {
		line string
		pid  int
		home string
		ok   bool
	}{
		{"start 4242 /home/u", 4242, "/home/u", true},
		{"start 7 /home/with space", 7, "/home/with space", true},
		{"start 1 /home/u", 0, "", false}, // init is never a rank
		{"start x /home/u", 0, "", false},
		{"start 42 home", 0, "", false}, // a relative home
		{"begin 42 /home/u", 0, "", false},
		{"start 42", 0, "", false},
		{"probe", 0, "", false},
	} {
		pid, home, ok := ParseStart(c.line)
		if pid != c.pid || home != c.home || ok != c.ok {
			t.Errorf("ParseStart(%q) = %d, %q, %v; want %d, %q, %v", c.line, pid, home, ok, c.pid, c.home, c.ok)
		}
	}
}

func TestParseServing(t *testing.T) {
	for line, want := range map[string]int{"serving 4000": 4000, "serving 0": 0, "serving -1": 0,
		"serving x": 0, "served 4000": 0, "": 0, strings.TrimSuffix(Serving(31337), "\n"): 31337} {
		port, ok := ParseServing(line)
		if port != want || ok != (want > 0) {
			t.Errorf("ParseServing(%q) = %d, %v; want %d", line, port, ok, want)
		}
	}
}

// What the launcher writes to a rank after the launch lines is what the
// rank reads; other lines are neither serve nor unserve.
func TestRankRequestsRoundTrip(t *testing.T) {
	if r := ParseRankRequest(ServeRequest("tok3n")); !r.Serve || r.Token != "tok3n" || r.Unserve {
		t.Errorf("serve request read as %+v", r)
	}
	if r := ParseRankRequest(Unserve); !r.Unserve || r.Serve {
		t.Errorf("unserve read as %+v", r)
	}
	for _, line := range []string{"", "go", "servex tok", "UNSERVE", "fetch a b c d"} {
		if r := ParseRankRequest(line); r != (RankRequest{}) {
			t.Errorf("%q read as %+v, want nothing", line, r)
		}
	}
}

// quick.sh reads a request as `read -r w a b c e`: a fetch line must fill
// exactly those five words, and the token comes on a line of its own.
func TestFetchRequestFitsQuickScriptsRead(t *testing.T) {
	req := FetchRequest("10.1.2.3", 4100, 2500*time.Millisecond, 1<<24, "t0ken")
	cmd := exec.Command("sh", "-c", `read -r w a b c e; read -r k; printf '%s|' "$w" "$a" "$b" "$c" "$e" "$k"`)
	cmd.Stdin = strings.NewReader(req)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "fetch|10.1.2.3|4100|2|16777216|t0ken|"; string(out) != want {
		t.Errorf("sh read %q, want %q", out, want)
	}
	if !strings.Contains(QuickText(), "read -r w a b c e;") {
		t.Error("quick.sh no longer reads its requests as five words")
	}
}

func TestLaunchInputRoundTrip(t *testing.T) {
	secret := bytes.Repeat([]byte{0xab}, 32)
	in := append(LaunchInput(secret, "[fe80::1]:7000"), "serve x\n"...)
	got, rest, err := ReadLaunch(bytes.NewReader(in), 32)
	if err != nil || !bytes.Equal(got.Secret, secret) || got.Addr != "[fe80::1]:7000" {
		t.Fatalf("read %+v, %v", got, err)
	}
	if tail, _ := io.ReadAll(rest); string(tail) != "serve x\n" {
		t.Errorf("rest %q: the launch lines were not read exactly", tail)
	}
	if _, _, err := ReadLaunch(bytes.NewReader(in), 33); err == nil {
		t.Error("a secret shorter than the minimum was accepted")
	}
}

func TestRankArgsNameTheFlags(t *testing.T) {
	got := RankArgs{Rank: 3, Job: "j1", Host: "node 7", HeartbeatTimeout: 5 * time.Second}.Argv()
	want := []string{"--rank", "3", "--job", "j1", "--host", "node 7", "--heartbeat-timeout", "5s"}
	if !slices.Equal(got, want) {
		t.Errorf("Argv = %q, want %q", got, want)
	}
}

func TestCleanupArgs(t *testing.T) {
	got := CleanupArgs("/gpfs/a b", "j1")
	if want := []string{"cleanup", "--dir", "/gpfs/a b", "--job", "j1"}; !slices.Equal(got, want) {
		t.Errorf("CleanupArgs = %q, want %q", got, want)
	}
}
