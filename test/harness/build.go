package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Builder builds the real binary once per test process, on first use, so
// that integration tests run exactly what users run. A test package holds
// one in a variable and calls Run from its TestMain.
type Builder struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// Path returns the built binary, building it on the first call. Under
// -short it skips the test instead: a test that runs the real binary is an
// integration test, and -short runs the unit tests alone.
func (b *Builder) Path(t testing.TB) string {
	t.Helper()
	SkipShort(t, "runs the real binary")
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

// Run runs the package's tests, then removes the build, and returns the
// exit code for TestMain to pass to os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(bin.Run(m)) }
func (b *Builder) Run(m *testing.M) int {
	defer b.Cleanup()
	return m.Run()
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
