package rank

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A job directory handle that answers ESTALE (GlusterFS's, opened while
// several nodes made the directory) is opened again by its path and the
// operation tried again on the new handle; another error stands at once.
func TestInJobDirReopensAStaleHandle(t *testing.T) {
	jd := filepath.Join(t.TempDir(), "ioswarm-0123456789ab")
	if err := os.Mkdir(jd, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := openDirHandle(jd)
	if err != nil {
		t.Fatal(err)
	}
	s := &state{jobDir: jd, dir: d}
	defer func() { s.dir.close() }()
	var handles []*dirHandle
	err = s.inJobDir(func(d *dirHandle) error {
		handles = append(handles, d)
		if len(handles) == 1 {
			return &os.PathError{Op: "create", Path: jd + "/.shared-marker", Err: unix.ESTALE}
		}
		return d.put("marker", []byte("token"))
	})
	if err != nil {
		t.Fatalf("inJobDir: %v", err)
	}
	if len(handles) != 2 || handles[0] == handles[1] || s.dir != handles[1] {
		t.Fatalf("handles %v, state's %v: want a second try on a fresh handle kept by the state", handles, s.dir)
	}
	if got, err := os.ReadFile(filepath.Join(jd, "marker")); err != nil || string(got) != "token" {
		t.Fatalf("marker %q, %v", got, err)
	}
	tries := 0
	other := errors.New("no space left on device")
	if err := s.inJobDir(func(*dirHandle) error { tries++; return other }); !errors.Is(err, other) || tries != 1 {
		t.Fatalf("another error: %v after %d tries, want it at once", err, tries)
	}
}
