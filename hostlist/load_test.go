package hostlist

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadHostFile(t *testing.T) {
	path := writeFile(t, "hosts.txt", "node[1-2] dir=/gpfs/x\n# note\nroot@node3\n")
	got, desc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Host: "node1", Dir: "/gpfs/x"}, {Host: "node2", Dir: "/gpfs/x"}, {User: "root", Host: "node3"}}
	if !slices.Equal(got, want) || desc != "file "+path {
		t.Fatalf("Load = %+v, %q; want %+v, %q", got, desc, want, "file "+path)
	}
}

func TestLoadIOzoneFile(t *testing.T) {
	path := writeFile(t, "threadlist", "# slots\nn1 /w /bin/iozone\nn1 /w /bin/iozone\n\nn2 /v /opt/iozone\n")
	got, desc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Host: "n1", Dir: "/w", Exe: "/bin/iozone"}, {Host: "n1", Dir: "/w", Exe: "/bin/iozone"},
		{Host: "n2", Dir: "/v", Exe: "/opt/iozone"},
	}
	if !slices.Equal(got, want) || desc != "iozone client file "+path {
		t.Fatalf("Load = %+v, %q; want %+v, %q", got, desc, want, "iozone client file "+path)
	}
}

// TestLoadFormatDetection checks the rule that picks the IOzone format: every
// entry line has three fields and the last two are absolute paths.
func TestLoadFormatDetection(t *testing.T) {
	cases := []struct {
		content string
		iozone  bool
	}{
		{"n1 /w /x\n", true},
		{"n1 /w /x # c\nn2 /w /x\n", true},
		{"n1 /w /x\nn2\n", false},
		{"n1 w /x\n", false},
		{"n1 /w x\n", false},
		{"n1 dir=/w\n", false},
		{"n1\n", false},
		{"# empty\n", false},
	}
	for _, c := range cases {
		if got := isIOzone([]byte(c.content)); got != c.iozone {
			t.Errorf("isIOzone(%q) = %v, want %v", c.content, got, c.iozone)
		}
	}
	// A mixed file is read as a host file, whose error points at the line.
	path := writeFile(t, "mixed", "n1 /w /x\nn2\n")
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+`:1: unexpected "/w" after the host`) {
		t.Errorf("Load of a mixed file: %v", err)
	}
}

func TestLoadInline(t *testing.T) {
	got, desc, err := Load("root@node[1-2]:2222")
	want := []Entry{{User: "root", Host: "node1", Port: 2222}, {User: "root", Host: "node2", Port: 2222}}
	if err != nil || !slices.Equal(got, want) || desc != "inline list" {
		t.Fatalf("Load inline = %+v, %q, %v", got, desc, err)
	}
	// Longer than a path may be: the stat error must not hide the list.
	long := "n[1-2]," + strings.Repeat("x,", 150) + "y"
	if got, _, err := Load(long); err != nil || len(got) != 153 {
		t.Fatalf("Load of a 300-character list: %d entries, %v", len(got), err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nohosts")
	if _, _, err := Load(missing); err == nil || !strings.Contains(err.Error(), "neither a readable host file") {
		t.Errorf("Load of a missing path: %v", err)
	}
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Load of a directory: %v", err)
	}
	empty := writeFile(t, "empty", "# nobody\n")
	if _, _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "no hosts") {
		t.Errorf("Load of a file without hosts: %v", err)
	}
	if _, _, err := Load("a,,b"); err == nil || !strings.Contains(err.Error(), "empty item") {
		t.Errorf("Load of a bad inline list: %v", err)
	}
}

// TestHostsExample keeps the example host file at the top of the repository
// valid, and checks it shows what it claims to.
func TestHostsExample(t *testing.T) {
	got, desc, err := Load("../hosts.example")
	if err != nil {
		t.Fatal(err)
	}
	if desc != "file ../hosts.example" {
		t.Errorf("hosts.example read as %q", desc)
	}
	var hosts []string
	hasUserPort, hasDir := false, false
	for _, e := range got {
		hosts = append(hosts, e.Host)
		hasUserPort = hasUserPort || (e.User != "" && e.Port != 0)
		hasDir = hasDir || e.Dir != ""
	}
	if !slices.Contains(hosts, "node01") || !slices.Contains(hosts, "node20") || !hasUserPort || !hasDir {
		t.Errorf("hosts.example lacks a range, user@host:port or dir=: %+v", got)
	}
}
