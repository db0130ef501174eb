package mounts

import (
	"strings"
	"testing"
)

const mountinfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:26 / /tmp rw,nosuid shared:2 - tmpfs tmpfs rw
31 22 0:40 / /gpfs/scratch rw - gpfs scratch rw
32 31 0:41 / /gpfs/scratch/fuse rw - fuse.beegfs beegfs_nodev rw
33 22 0:42 / /mnt/with\040space rw - nfs4 srv:/x rw
34 30 0:43 / /tmp rw - tmpfs second rw
`

func TestTypeAtPicksLongestVisibleMount(t *testing.T) {
	cases := map[string]string{
		"/":                       "ext4",
		"/home/me":                "ext4",
		"/tmp/x":                  "tmpfs",
		"/gpfs/scratch/a":         "gpfs",
		"/gpfs/scratchy":          "ext4",
		"/gpfs/scratch/fuse/deep": "fuse.beegfs",
		"/mnt/with space/d":       "nfs4",
	}
	for path, want := range cases {
		if got := typeAt(strings.NewReader(mountinfo), path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if got := typeAt(strings.NewReader("garbage\n"), "/x"); got != "unknown" {
		t.Errorf("no usable line: %s", got)
	}
}

const sampleMountinfo = `22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
30 22 0:26 / /tmp rw,nosuid - tmpfs tmpfs rw,size=1g
41 22 0:40 / /gpfs/fs1 rw,relatime shared:20 - gpfs fs1 rw
42 41 0:41 / /gpfs/fs1/local rw - xfs /dev/sdb rw
50 22 0:50 / /home rw - nfs4 srv:/home rw,vers=4.2
51 50 0:51 / /home rw - autofs systemd-1 rw
60 22 0:60 / /mnt/my\040apps rw - lustre 10.0.0.1@tcp:/apps rw
bad line
`

func TestTypeAtOnAnotherTable(t *testing.T) {
	cases := []struct{ path, want string }{
		{"/usr/bin", "ext4"},
		{"/tmp", "tmpfs"},
		{"/tmpfoo/x", "ext4"},
		{"/gpfs/fs1/bin", "gpfs"},
		{"/gpfs/fs1/local/bin", "xfs"},
		{"/home/u/bin", "autofs"}, // the later mount on the same point hides the earlier
		{"/mnt/my apps/ioswarm", "lustre"},
		{"/mnt/my", "ext4"},
	}
	for _, c := range cases {
		if got := typeAt(strings.NewReader(sampleMountinfo), c.path); got != c.want {
			t.Errorf("typeAt(%q) = %q, want %q", c.path, got, c.want)
		}
	}
	if got := typeAt(strings.NewReader(""), "/x"); got != "unknown" {
		t.Errorf("typeAt on an empty table = %q, want unknown", got)
	}
}

func TestMountAtGivesSourceAndOptions(t *testing.T) {
	table := sampleMountinfo + "70 22 0:70 / /ro rw,ro - ext4 /dev/sdc ro\n"
	cases := []struct {
		path         string
		want         Mount
		wantReadOnly bool
	}{
		{"/usr", Mount{Point: "/", Type: "ext4", Source: "/dev/vda1", Options: "rw,relatime;rw"}, false},
		{"/home/me", Mount{Point: "/home", Type: "autofs", Source: "systemd-1", Options: "rw;rw"}, false},
		{"/mnt/my apps/x", Mount{Point: "/mnt/my apps", Type: "lustre", Source: "10.0.0.1@tcp:/apps", Options: "rw;rw"}, false},
		{"/ro/x", Mount{Point: "/ro", Type: "ext4", Source: "/dev/sdc", Options: "rw,ro;ro"}, true},
	}
	for _, c := range cases {
		got := mountAt(strings.NewReader(table), c.path)
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.path, got, c.want)
		}
		if got.ReadOnly() != c.wantReadOnly {
			t.Errorf("%s: read-only %v, want %v", c.path, got.ReadOnly(), c.wantReadOnly)
		}
	}
}
