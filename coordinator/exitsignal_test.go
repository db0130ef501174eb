package coordinator

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// exitOf runs a shell that ends the way script says and returns its
// error.
func exitOf(t *testing.T, script string) error {
	t.Helper()
	err := exec.Command("/bin/sh", "-c", script).Run()
	if err == nil {
		t.Fatalf("%q ended well", script)
	}
	return err
}

func TestExitTextNamesTheSignal(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want []string
		not  []string
	}{
		{"SIGKILL, local", exitOf(t, "kill -KILL $$"), []string{"killed by signal SIGKILL", "OOM killer", "memory may be the cause"}, nil},
		{"SIGTERM, local", exitOf(t, "kill -TERM $$"), []string{"killed by signal SIGTERM (terminated)"}, []string{"OOM"}},
		{"a plain failure", exitOf(t, "exit 1"), []string{"exit status 1"}, []string{"signal", "OOM"}},
		{"a shell's 137", errors.New("exit status 137"), []string{"exit status 137, as a shell reports a process killed by signal SIGKILL", "(128 + 9)", "memory may be the cause"}, nil},
		{"a shell's 143", errors.New("srun: exit code 143"), []string{"killed by signal SIGTERM", "(128 + 15)"}, []string{"OOM"}},
		{"over SSH", errors.New("killed by signal KILL"), []string{"killed by signal KILL", "memory may be the cause"}, nil},
		{"srun's task line", errors.New("srun: exit status 9: node1: task 0: Killed"), []string{"task 0: Killed", "memory may be the cause"}, nil},
		{"not a signal's status", errors.New("exit status 2"), []string{"exit status 2"}, []string{"signal", "OOM"}},
	}
	for _, c := range cases {
		got := exitText(c.err)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q says %q", c.name, got, w)
			}
		}
	}
}
