package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// buildTimeout bounds building nfdelay: the first build on a loaded
// machine compiles golang.org/x/sys as well.
const buildTimeout = 3 * time.Minute

// Delay holds every packet node sends or receives on the cluster's fabric
// for oneWay, so a round trip through the node takes 2*oneWay longer; 0
// removes the delay. A new delay replaces the old one. The kernel has no
// netem here, so cluster.sh does it with iptables NFQUEUE rules and the
// nfdelay program, which Delay builds on first use into the cluster's
// directory (CLUSTER_NFDELAY names a prebuilt one instead). The delay is
// in force when Delay returns, and Stop ends it with the cluster.
func (c *Cluster) Delay(node string, oneWay time.Duration) error {
	if oneWay < 0 || oneWay%time.Millisecond != 0 {
		return fmt.Errorf("delay %s by %v: want whole milliseconds, 0 or more", node, oneWay)
	}
	args := []string{strconv.FormatInt(oneWay.Milliseconds(), 10)}
	if oneWay > 0 {
		helper, err := c.nfdelay()
		if err != nil {
			return err
		}
		args = append(args, helper)
	}
	return c.op("delay", node, args...)
}

// nfdelay returns the path of the nfdelay program, building it the first
// time. The file's presence is the record that it was built: the directory
// is new with every cluster, and the build renames a finished binary into
// place, so a reader never finds half a file.
func (c *Cluster) nfdelay() (string, error) {
	if p := os.Getenv("CLUSTER_NFDELAY"); p != "" {
		return p, nil
	}
	path := filepath.Join(c.Dir, "nfdelay")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("nfdelay: %w", err)
	}
	src := filepath.Join(filepath.Dir(c.script), "nfdelay")
	tmp, err := os.CreateTemp(c.Dir, "nfdelay-build-")
	if err != nil {
		return "", fmt.Errorf("building nfdelay: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // a no-op once renamed
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp.Name(), ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building nfdelay in %s (set CLUSTER_NFDELAY to a prebuilt one): %v\n%s", src, err, out)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("building nfdelay: %w", err)
	}
	return path, nil
}
