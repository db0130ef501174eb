package launcher

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

// A streamed step answers each line as it comes (an echo loop here), with
// --unbuffered passed to srun, and its Close reports how it ended.
func TestSrunStreamAnswersLineByLine(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "echo.sh")
	writeExec(t, exe, "#!/bin/sh\necho \"ready $*\"\nwhile read -r l; do echo \"got $l\"; done\necho \"last words\" >&2\nexit 4\n")
	var log testio.LockedBuffer
	l := testSrun(t, f, exe, &log, "n1")
	s, err := l.Stream(context.Background(), Target{Host: "n1"}, []string{"hosts", "probe"})
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(s.Out)
	if line, err := br.ReadString('\n'); err != nil || line != "ready hosts probe\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	// Each answer is read before the next question is asked: a step
	// whose output waited for a buffer to fill would hang here.
	for i := range 3 {
		if _, err := fmt.Fprintf(s.In, "q%d\n", i); err != nil {
			t.Fatal(err)
		}
		if line, err := br.ReadString('\n'); err != nil || line != fmt.Sprintf("got q%d\n", i) {
			t.Fatalf("answer %d: %q, %v", i, line, err)
		}
	}
	err = s.Close()
	if want := "host n1: " + exe + " hosts: srun: exit status 4: last words"; err == nil || err.Error() != want {
		t.Errorf("Close = %v, want %q", err, want)
	}
	calls := f.calls(t, f.tools.Srun)
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "--unbuffered ") || !strings.Contains(calls[0], "--nodelist=n1") {
		t.Errorf("srun called as %q", calls)
	}
}

// Output the caller leaves unread does not keep Close waiting.
func TestSrunStreamCloseDrainsOutput(t *testing.T) {
	f := newFakeSlurm(t, "")
	exe := filepath.Join(f.dir, "chatty.sh")
	writeExec(t, exe, "#!/bin/sh\ni=0; while [ $i -lt 20000 ]; do echo \"line $i of noise\"; i=$((i+1)); done\n")
	l := testSrun(t, f, exe, &testio.LockedBuffer{}, "n1")
	s, err := l.Stream(context.Background(), Target{Host: "n1"}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(s.Out, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close = %v", err)
		}
	case <-time.After(20 * time.Second): // a hang, not a timing
		t.Fatal("Close hung on output nobody read")
	}
}
