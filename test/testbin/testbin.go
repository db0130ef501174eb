// Package testbin builds the real ioswarm binary once per test process, so
// integration tests run exactly what users run.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Builder builds the binary on first use; a test package holds one in its
// TestMain and removes Dir when done.
type Builder struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// Path returns the built binary, building it on the first call.
func (b *Builder) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "ioswarm-bin-")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "ioswarm")
		cmd := exec.Command("go", "build", "-o", b.path, ".")
		cmd.Dir = repoRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("build ioswarm: %v\n%s", b.err, b.out)
	}
	return b.path
}

// Cleanup removes the build directory.
func (b *Builder) Cleanup() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
