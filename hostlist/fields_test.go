package hostlist

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oneLine fails the test when a parse error is more than one line: it
// ends up in the one-line error the user reads.
func oneLine(t *testing.T, what, data string, err error) {
	t.Helper()
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("%s(%q): error %q is more than one line", what, data, err)
	}
}

func writeHosts(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "clients")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every -+m field is checked while the file is read, before any rank
// starts: a relative work directory in IOzone's terms (it was refused in
// the host file's), a NUL or a newline-like control character quoted.
func TestIOzoneFieldsCheckedInIOzoneTerms(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"n1 work /bin/iozone\n", `workdir "work" is not an absolute path (IOzone -+m format`},
		{"n1 /w iozone\n", `exe "iozone" is not an absolute path (IOzone -+m format`},
		{"n1 /w\x00x /bin/iozone\n", `workdir "/w\x00x" holds a control character`},
		{"n1 /w\x1bx /bin/iozone\n", `workdir "/w\x1bx" holds a control character`},
		{"n1 /w\xffx /bin/iozone\n", `workdir "/w\xffx" is not valid UTF-8`},
	} {
		_, _, err := Load(writeHosts(t, c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%q): %v; want %q", c.content, err, c.want)
			continue
		}
		oneLine(t, "Load", c.content, err)
	}
	if _, _, err := Load(writeHosts(t, "n1 dir=/x\x00y\n")); err == nil || !strings.Contains(err.Error(), "holds a control character") {
		t.Errorf("host file dir= with a NUL: %v", err)
	}
}

// A -+m file of a million lines is refused at its line cap, which the
// error states, rather than parsed whole.
func TestIOzoneFileLineCap(t *testing.T) {
	var b strings.Builder
	for i := range MaxClientLines + 1 {
		b.WriteString("n")
		b.WriteString(string(rune('1' + i%4)))
		b.WriteString(" /w /bin/iozone\n")
	}
	_, _, err := Load(writeHosts(t, b.String()))
	if err == nil || !strings.Contains(err.Error(), "more than 65536 client lines") || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("Load of %d lines: %v; want the line cap and the size cap named", MaxClientLines+1, err)
	}
}

// A FIFO named as the host file is refused without waiting for a writer.
func TestHostFileFIFORefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "hosts")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := Load(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("Load(FIFO): %v; want 'not a regular file'", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Load of a FIFO still blocked after 30s")
	}
}
