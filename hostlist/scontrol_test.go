package hostlist

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// scontrolOracle runs `scontrol show hostnames` with a minimal private
// configuration: expanding a list needs no controller, but scontrol refuses
// to start without some slurm.conf.
type scontrolOracle struct {
	t    *testing.T
	path string
	conf string
}

// expand returns Slurm's expansion, or ok=false when Slurm rejects the list
// (it prints "Invalid hostlist" and still exits 0).
func (o scontrolOracle) expand(list string) (hosts []string, ok bool, out string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.path, "show", "hostnames", list)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+o.conf)
	b, err := cmd.CombinedOutput()
	out = string(b)
	if err != nil || strings.Contains(out, "Invalid hostlist") {
		return nil, false, out
	}
	return strings.Fields(out), true, out
}

func newScontrolOracle(t *testing.T) scontrolOracle {
	path, err := exec.LookPath("scontrol")
	if err != nil {
		t.Skip("scontrol not installed: install slurm-client to compare Expand with Slurm's own expansion")
	}
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("ClusterName=oracle\nSlurmctldHost=localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := scontrolOracle{t: t, path: path, conf: conf}
	if got, ok, out := o.expand("probe[1-2]"); !ok || !slices.Equal(got, []string{"probe1", "probe2"}) {
		t.Skipf("scontrol does not expand lists on this machine: %q", out)
	}
	return o
}

// TestExpandMatchesScontrol compares Expand with Slurm on lists where both
// accept, and on lists both reject. Where ioswarm deliberately differs
// (suffixes after the last bracket are accepted; "a,,b", "n[1-]" and unclosed
// brackets are refused) the unit tests state the behaviour instead.
func TestExpandMatchesScontrol(t *testing.T) {
	o := newScontrolOracle(t)
	same := []string{
		"node[01-16,20]", "rack[1-2]-node[1-3]", "node[1-010]", "node[08-100]",
		"node[001-10]", "n[01-3]", "[1-3]", "n[0]", "n[00]", "n[1-2][3-4]",
		"n[1-3,2]", "n[3,1-2]", "n[1-2]-[01-02]", "a,b,c", "n[1-2],m,n[2-3]",
		"x[1-2].y[1-2]-z[1-2]", "a[1-2]b[1-3]c[1,4]d[1-2]",
		"r[1-2]c[1-2]n[01-02]x[1-3]y[7]", "n[9-11],n1[1-2]", "10.0.0.[1-3]", "n[0-4095]",
	}
	for _, list := range same {
		want, ok, out := o.expand(list)
		if !ok {
			t.Errorf("scontrol rejects %q: %s", list, out)
			continue
		}
		got, err := Expand(list)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Expand(%q) = %d hosts %.200q, %v\nscontrol gives %d hosts %.200q", list, len(got), got, err, len(want), want)
		}
		// Compress output must be Slurm syntax naming the same hosts.
		back, ok, out := o.expand(Compress(want))
		if !ok || !slices.Equal(back, want) {
			t.Errorf("scontrol reads Compress of %q (%q) as %.200q: %s", list, Compress(want), back, out)
		}
	}
	bothReject := []string{
		"node[5-3]", "node[]", "node[a-c]", "n[1,,2]", "n[-3]", "n[1-3]]", "n[0-99999999999]",
	}
	for _, list := range bothReject {
		if got, ok, _ := o.expand(list); ok {
			t.Errorf("scontrol accepts %q as %q; the test expects a rejection", list, got)
		}
		if got, err := Expand(list); err == nil {
			t.Errorf("Expand(%q) = %q; Slurm rejects it", list, got)
		}
	}
}
