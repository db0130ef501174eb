package ssh

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/test/harness"
)

// stuckShellLimit is how long after SIGINT a run with a node whose login
// shell blocks may take to exit. Before, the exit waited for that shell
// (here: for good, the shell waits until the test releases it); now the
// connection is closed a couple of seconds after the signal. The margin
// is for load, not for the old behaviour.
const stuckShellLimit = 40 * time.Second

// A ~/.bashrc that blocks on one node (a home on a hung server) holds
// neither the launch nor Ctrl-C: SIGINT ends the run, whose error names
// that node, long before the shell would have ended.
func TestStuckLoginShellDoesNotHoldSIGINT(t *testing.T) {
	e := newEnv(t, 2)
	// The nodes' /tmp is private; /var/tmp is shared with this process.
	shared, err := os.MkdirTemp("/var/tmp", "ioswarm-stuck-")
	if err != nil {
		t.Fatal(err)
	}
	release, entered := filepath.Join(shared, "release"), filepath.Join(shared, "entered")
	t.Cleanup(func() {
		// Lets every blocked shell end, then removes the markers.
		_ = os.WriteFile(release, nil, 0o644)
		time.Sleep(500 * time.Millisecond)
		os.RemoveAll(shared)
	})
	bashrc := "touch " + entered + "\nwhile [ ! -e " + release + " ]; do sleep 0.2; done\n"
	if err := os.WriteFile(filepath.Join(e.c.Dir, "home", "node2", ".bashrc"), []byte(bashrc), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "2", "--dir", e.dir,
		"--total", "4MiB", "--block", "1MiB", "--drop-caches", "off"}, e.sshFlags()...)
	cmd := e.c.Head(context.Background(), e.bin, args...)
	stderr := &testio.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if !harness.Poll(60*time.Second, 20*time.Millisecond, func() bool {
		_, err := os.Stat(entered)
		return err == nil
	}) {
		t.Fatalf("node2's login shell never ran its .bashrc; stderr:\n%s", stderr.String())
	}
	time.Sleep(time.Second) // the launch is now waiting on node2
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, took := harness.WaitExit(t, cmd, stuckShellLimit)
	t.Logf("exit %d %v after SIGINT with node2's login shell blocked", code, took)
	if code == 0 {
		t.Errorf("exit 0 after SIGINT")
	}
	finalError(t, stderr.String(), "node2")
}
