// Package aptwait tests scripts/apt-wait.sh, which the test script and
// IOzone's installer source to wait out another installation's locks.
package aptwait

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// holder runs the script's apt_lock_holder with lockFile as the only lock
// apt and dpkg would take, and returns what it printed.
func holder(t *testing.T, lockFile string) string {
	t.Helper()
	script, err := filepath.Abs("../../scripts/apt-wait.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `source "$1"; apt_lock_files=("$2"); apt_lock_holder`, "bash", script, lockFile)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("apt_lock_holder: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// The holder of an fcntl lock, as dpkg takes it, is named by PID and
// command; once the lock is let go nothing is named. apt-get prints
// nothing while it waits on dpkg's lock, so this line is all a person
// waiting for the suite to start sees.
func TestLockHolderNamed(t *testing.T) {
	lockFile := filepath.Join(t.TempDir(), "lock-frontend")
	f, err := os.Create(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := holder(t, lockFile); got != "" {
		t.Fatalf("no lock held, yet apt_lock_holder printed %q", got)
	}
	lock := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lock); err != nil {
		t.Fatal(err)
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d (%s) on %s", os.Getpid(), strings.TrimSpace(string(comm)), lockFile)
	if got := holder(t, lockFile); got != want {
		t.Fatalf("lock held: apt_lock_holder printed %q, want %q", got, want)
	}
	lock.Type = unix.F_UNLCK
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lock); err != nil {
		t.Fatal(err)
	}
	if got := holder(t, lockFile); got != "" {
		t.Fatalf("lock let go, yet apt_lock_holder printed %q", got)
	}
}
