package sshlaunch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ioswarm/rankproto"
)

func TestShellQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "''"},
		{"plain", "plain"},
		{"/opt/io swarm/bin", "'/opt/io swarm/bin'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a;b", "'a;b'"},
		{"[fe80::1]:22", "'[fe80::1]:22'"},
		{"10.77.5.1:41234", "10.77.5.1:41234"},
		{"5s", "5s"},
		{"line\nbreak", "'line\nbreak'"},
		{"`id`", "'`id`'"},
		{"*", "'*'"},
		{"~", "'~'"},
	}
	for _, c := range cases {
		if got := rankproto.QuoteSh(c.in); got != c.want {
			t.Errorf("rankproto.QuoteSh(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// oddWords are arguments a shell would mangle if quoting were wrong.
var oddWords = []string{"", " ", "it's", `back\slash`, "$HOME", "$(id)", "`id`", "a b\tc",
	"semi;colon", "amp&", "pipe|", "glob*?[a]", "~user", "new\nline", "'", "''", `"`, "[fe80::1%eth0]:22",
	"--connect", "10.0.0.1:7000", "ünïcode", "#hash", "!bang"}

// The quoted command line, parsed by a real sh, gives back the very words.
func TestCommandLineRoundTripsThroughSh(t *testing.T) {
	line := rankproto.ShLine(append([]string{"printf", `%s\0`}, oddWords...)...)
	out, err := exec.Command("sh", "-c", line).Output()
	if err != nil {
		t.Fatalf("sh -c %s: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, oddWords) {
		t.Errorf("sh parsed\n%q\nwant\n%q", got, oddWords)
	}
}

// rankCommand announces the PID of the process that becomes the rank, and
// passes an executable path with spaces and quotes, and every argument,
// through unchanged.
func TestRankCommandRunsExeWithArgsAndAnnouncesPID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd dir's $x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "io swarm")
	script := "#!/bin/sh\necho \"pid $$\"\nprintf '%s\\0' \"$@\"\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", "-c", rankproto.RankCommand(exe, oddWords)).Output()
	if err != nil {
		t.Fatalf("%s: %v", rankproto.RankCommand(exe, oddWords), err)
	}
	first, rest, _ := strings.Cut(string(out), "\n")
	second, rest, _ := strings.Cut(rest, "\n")
	if second != "pid "+first {
		t.Errorf("start script said PID %q, the rank runs as %q: exec did not keep the PID", first, second)
	}
	got := strings.Split(strings.TrimSuffix(rest, "\x00"), "\x00")
	want := append([]string{"rank"}, oddWords...)
	if !slices.Equal(got, want) {
		t.Errorf("rank got args\n%q\nwant\n%q", got, want)
	}
}

func TestExecAndKillCommands(t *testing.T) {
	if got, want := rankproto.ExecCommand("/x y/ioswarm", []string{"cleanup", "--dir", "/gpfs/a b"}),
		`'/x y/ioswarm' cleanup --dir '/gpfs/a b'`; got != want {
		t.Errorf("execCommand = %s, want %s", got, want)
	}
	if got := rankproto.KillCommand(4242); got != "kill -KILL -- -4242 2>/dev/null || kill -KILL 4242" {
		t.Errorf("killCommand = %s", got)
	}
}

// The scripts are single lines without "!" so that csh-family login shells
// pass them to sh intact.
func TestScriptsAreOneLineWithoutBang(t *testing.T) {
	for name, s := range map[string]string{"probe": rankproto.ScriptText("probe.sh"), "copy": rankproto.CopyText(), "start": rankproto.StartText(),
		"fetch": rankproto.FetchText(), "quick": rankproto.QuickText()} {
		if strings.ContainsAny(s, "\n!") {
			t.Errorf("%s script holds a newline or '!': %q", name, s)
		}
	}
}
