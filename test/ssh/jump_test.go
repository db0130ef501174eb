package ssh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Nodes behind a login node: ~/.ssh/config's ProxyJump takes the
// connections through node1, as sshd's logs on the other nodes show: they
// accepted a login from node1's address.
func TestProxyJumpThroughLoginNode(t *testing.T) {
	e := newEnv(t, 3)
	config := writeFile(t, "ssh_config", "Host node2 node3\n    ProxyJump node1\n\n"+readFile(t, e.c.SSHConfig))
	args := []string{"run", "--hosts", "node[2-3]", "--threads", "2", "--dir", e.dir,
		"--total", "2MiB", "--block", "1MiB", "--ssh-config", config}
	o := e.head(t, 2*time.Minute, args...)
	if o.Code != 0 {
		t.Fatalf("run through node1 exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	for _, node := range []string{"node2", "node3"} {
		log := readFile(t, filepath.Join(e.c.Dir, "nodes", node, "sshd.log"))
		if !strings.Contains(log, "Accepted publickey for root from "+e.c.IPs[0]+" ") {
			t.Errorf("%s's sshd did not see the connection come from node1 (%s):\n%s", node, e.c.IPs[0], log)
		}
	}
	if _, err := os.Stat(e.cachedOn("node1")); !os.IsNotExist(err) {
		t.Errorf("the jump host got a copy of the binary (stat: %v)", err)
	}
	e.waitNothingLeft(t, 5*time.Second)
}
