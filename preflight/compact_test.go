package preflight

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The compact table keeps the columns that decide a run, fits 80 columns
// with long node names and filesystem types, keeps the trailer, and says
// how to see the rest.
func TestCompactTableFitsEighty(t *testing.T) {
	no := false
	results := []Result{
		{Host: "compute-node-01", OK: true, Report: &Report{User: "root", Arch: "x86_64", Kernel: "6.18.44-fc-v1147",
			FSType: "fuse.glusterfs", FreeBytes: 40 << 30, Writable: true, CanDrop: true}, Clock: &Offset{WallNS: -12000, ErrorNS: 45000},
			Shared: &no},
		{Host: "compute-node-02", Problems: []string{"connect to 10.0.0.2:22: no answer within 3s (--connect-timeout)"}},
	}
	var b strings.Builder
	if err := WriteCompactTable(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	for _, want := range []string{
		"NODE             STATUS  FS              FREE      MEMORY  WRITE  DROP  SHARED",
		"compute-node-01  ok      fuse.glusterfs  40.0 GiB  -       yes    yes   no",
		"compute-node-02  FAILED  -               -         -       -      -     -",
		"compute-node-02: connect to 10.0.0.2:22: no answer within 3s (--connect-timeout)",
		"1 of 2 nodes failed",
		"(user, arch, kernel, io_uring and clock offset: --details)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compact table lacks %q:\n%s", want, out)
		}
	}
	for _, l := range lines[:3] {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}
