package rankproto

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/commands.golden")

// goldenCommands are command lines of every kind, with odd arguments.
func goldenCommands() []string {
	h := strings.Repeat("ab", 32)
	return []string{
		ProbeCommand(h, []string{"x86_64", "amd64"}, []string{"", "/opt/io swarm"}),
		ProbeCommand(h, nil, []string{"/opt/x"}),
		QuickCommand(h, []string{"x86_64"}, []string{"--rank", "3", "--job", "j'1"}),
		CopyCommand(h),
		FetchCommand(h, "10.0.0.1", 4242, true, 30*time.Second, 12345),
		FetchCommand(h, "10.0.0.1", 4242, false, 300*time.Millisecond, 12345),
		RankCommand("/x/ioswarm", []string{"--rank", "1"}),
		ExecCommand("/x/ioswarm", []string{"cleanup", "--dir", "/a b"}),
		KillCommand(1234),
	}
}

// The command lines sent to nodes are byte for byte what the golden file
// holds: it was made from the scripts as Go strings, before they became
// files, so a change to a script file (or to how files are joined) shows
// here as a change of what nodes run. Run with -update after a deliberate
// change to a script.
func TestCommandsMatchGolden(t *testing.T) {
	var b strings.Builder
	for _, s := range goldenCommands() {
		b.WriteString(s + "\n=====\n")
	}
	file := "testdata/commands.golden"
	if *update {
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(b.String(), "\n=====\n")
	for i, w := range strings.Split(string(want), "\n=====\n") {
		if i >= len(got) || got[i] != w {
			t.Errorf("command %d differs from %s:\n got %q\nwant %q", i, file, got[min(i, len(got)-1)], w)
		}
	}
}

// scriptNames are the embedded script files, relative to sh/.
func scriptNames(t *testing.T) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(scriptFiles, "sh", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "sh/"))
		}
		return err
	})
	if err != nil || len(names) < 10 {
		t.Fatalf("embedded scripts: %v (%d found)", err, len(names))
	}
	return names
}

// Every script, and every file it includes, becomes one line without "!"
// (csh-family login shells pass nothing else to sh intact); an include of
// a missing file would panic here.
func TestScriptsAreOneLineWithoutBang(t *testing.T) {
	for _, name := range scriptNames(t) {
		s := ScriptText(name)
		if strings.ContainsAny(s, "\n!") || s == "" {
			t.Errorf("%s: empty, or holds a newline or '!': %q", name, s)
		}
		if strings.Contains(s, includePrefix) {
			t.Errorf("%s: an include was left unresolved: %q", name, s)
		}
	}
}

// The probe sweeps partial copies older than a copy may take.
func TestSweepAgeIsCopyTimeout(t *testing.T) {
	want := "-mmin +" + strconv.Itoa(int(CopyTimeout/time.Minute)) + " "
	if s := ScriptText("lib/sweep.sh"); !strings.Contains(s, want) {
		t.Errorf("sweep.sh does not hold %q (CopyTimeout %v): %s", want, CopyTimeout, s)
	}
}

// shellcheck finds nothing in the scripts as the files hold them, each
// file checked with the files it includes.
func TestScriptsPassShellcheck(t *testing.T) {
	bin, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck is not installed (apt-get install shellcheck): the node scripts are not linted")
	}
	var files []string
	for _, name := range scriptNames(t) {
		files = append(files, path.Join("sh", name))
	}
	out, err := exec.Command(bin, append([]string{"-x"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck -x %s: %v\n%s", strings.Join(files, " "), err, out)
	}
}
