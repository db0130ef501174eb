package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A cluster with Options.User lets that user log in to every node with the
// run's key, into a home of the node's own that the user may write, while
// root's logins work as before.
func TestClusterUser(t *testing.T) {
	c := StartWith(t, 2, Options{User: "ioswarm-test"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c.User != "ioswarm-test" || c.UserHome == "" {
		t.Fatalf("User %q, UserHome %q", c.User, c.UserHome)
	}
	for _, node := range c.Nodes {
		out, err := c.SSHAs(ctx, c.User, node, `id -un; id -u; echo "$HOME"; touch ~/written`).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh -l %s %s: %v: %s", c.User, node, err, out)
		}
		f := strings.Fields(string(out))
		if len(f) != 3 || f[0] != c.User || f[1] == "0" || f[2] != c.UserHome {
			t.Errorf("%s: id -un, id -u, $HOME = %q; want %s, not 0, %s", node, f, c.User, c.UserHome)
		}
		if _, err := os.Stat(filepath.Join(c.Dir, "userhome", node, "written")); err != nil {
			t.Errorf("%s: the file the user wrote in its home is not in the node's home: %v", node, err)
		}
		if out, err := c.SSH(ctx, node, "id -u").Output(); err != nil || strings.TrimSpace(string(out)) != "0" {
			t.Errorf("%s: root's login: %q, %v", node, out, err)
		}
	}
}
