package hostlist

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	in := "\uFEFF# cluster A\n" +
		"node1\n" +
		"\n" +
		"   node[2-3]   dir=/gpfs/a   # two nodes\n" +
		"root@node4:2222 dir=/scratch/run#2\n" +
		"\t# indented comment\r\n" +
		"a,b\r\n" +
		"node1\n"
	want := []Entry{
		{Host: "node1"},
		{Host: "node2", Dir: "/gpfs/a"}, {Host: "node3", Dir: "/gpfs/a"},
		{User: "root", Host: "node4", Port: 2222, Dir: "/scratch/run#2"},
		{Host: "a"}, {Host: "b"},
		{Host: "node1"},
	}
	got, err := ParseFile(strings.NewReader(in), "hosts.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseFile = %+v\nwant %+v", got, want)
	}
}

func TestParseFileErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"n1\nn2\nn3\nn4\nn5\nn6\nn7 dri=/x\n", `hosts.txt:7: unknown field "dri=/x" (known: dir)`},
		{"n1 dir=/a dir=/b\n", "hosts.txt:1: dir= given twice"},
		{"n1 dir=\n", "hosts.txt:1: dir= needs a path"},
		{"n1, n2\n", `hosts.txt:1: "n1," ends with "," and is followed by "n2"`},
		{"n1 n2\n", `hosts.txt:1: unexpected "n2" after the host`},
		{"# nothing\n\n", "hosts.txt: no hosts in the file"},
		{"", "hosts.txt: no hosts in the file"},
		{"ok\nnode[1-3\n", `hosts.txt:2: invalid host list "node[1-3"`},
		{"node1#x\n", `hosts.txt:1: invalid host list "node1#x": character '#'`},
		{"n:99999\n", `hosts.txt:1: invalid host "n:99999"`},
		{"n[0-1048575]\nm\n", "hosts.txt:2: invalid host list \"m\": names more than 1048576 hosts"},
	}
	for _, c := range cases {
		got, err := ParseFile(strings.NewReader(c.in), "hosts.txt")
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseFile(%q) = %d entries, %v; want an error holding %q", c.in, len(got), err, c.msg)
		}
	}
}

// endlessReader yields the same line forever, standing in for a large file
// or a device mistaken for a host file.
type endlessReader struct{ line []byte }

func (r endlessReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], r.line)
	}
	return n, nil
}

func TestParseFileBounds(t *testing.T) {
	long := strings.Repeat("a", maxLineLen+1) + "\n"
	if _, err := ParseFile(strings.NewReader(long), "h"); err == nil || !strings.Contains(err.Error(), "h:1: line longer than 64 KiB") {
		t.Errorf("a line over 64 KiB: %v", err)
	}
	atLimit := "n" + strings.Repeat(" ", maxLineLen-1) + "\n"
	if _, err := ParseFile(strings.NewReader(atLimit), "h"); err != nil {
		t.Errorf("a line of exactly 64 KiB: %v", err)
	}
	// Blank lines parse to nothing, so only the size bound can stop this.
	blank := io.LimitReader(endlessReader{[]byte("\n")}, 64<<20)
	if _, err := ParseFile(blank, "big"); err == nil || !strings.Contains(err.Error(), "big: larger than 16 MiB") {
		t.Errorf("a 64 MiB file: %v", err)
	}
	exact := bytes.Repeat([]byte("#\n"), maxFileSize/2-3)
	exact = append(exact, "host\n"...)
	exact = append(exact, bytes.Repeat([]byte("\n"), maxFileSize-len(exact))...)
	if got, err := ParseFile(bytes.NewReader(exact), "exact"); err != nil || len(got) != 1 {
		t.Errorf("a file of exactly 16 MiB: %d entries, %v", len(got), err)
	}
}

func TestParseIOzone(t *testing.T) {
	in := "# IOzone -+m client file\n" +
		"node1 /gpfs/iozone /usr/local/bin/iozone\n" +
		"node1 /gpfs/iozone /usr/local/bin/iozone\n" +
		"\n" +
		"node2   /gpfs/b\t/opt/iozone   # slot 3\n"
	want := []Entry{
		{Host: "node1", Dir: "/gpfs/iozone", Exe: "/usr/local/bin/iozone"},
		{Host: "node1", Dir: "/gpfs/iozone", Exe: "/usr/local/bin/iozone"},
		{Host: "node2", Dir: "/gpfs/b", Exe: "/opt/iozone"},
	}
	got, err := ParseIOzone(strings.NewReader(in), "threadlist")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseIOzone = %+v\nwant %+v", got, want)
	}
}

func TestParseIOzoneErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"node1 /a /b /c\n", "threadlist:1: found 4 fields, want 3"},
		{"node1 /a /b\nnode2 /a\n", "threadlist:2: found 2 fields, want 3"},
		{"node1\n", "threadlist:1: found 1 fields"},
		{"# only comments\n", "threadlist: no hosts in the file"},
		{"no:de /a /b\n", `threadlist:1: invalid host`},
	}
	for _, c := range cases {
		got, err := ParseIOzone(strings.NewReader(c.in), "threadlist")
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseIOzone(%q) = %d entries, %v; want an error holding %q", c.in, len(got), err, c.msg)
		}
	}
}

func TestStripComment(t *testing.T) {
	cases := map[string]string{
		"# all":            "",
		"node1 # note":     "node1 ",
		"node1\t#note":     "node1\t",
		"dir=/a#b":         "dir=/a#b",
		"n1 dir=/a#b # c":  "n1 dir=/a#b ",
		"node1#not-a-note": "node1#not-a-note",
	}
	for in, want := range cases {
		if got := stripComment(in); got != want {
			t.Errorf("stripComment(%q) = %q, want %q", in, got, want)
		}
	}
}
