package hostlist

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// seq lists prefix+pad(k, width)+suffix for k in lo..hi.
func seq(prefix string, lo, hi uint64, width int, suffix string) []string {
	var out []string
	for k := lo; k <= hi; k++ {
		out = append(out, prefix+pad(k, width)+suffix)
	}
	return out
}

func TestExpand(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"node[01-16,20]", append(seq("node", 1, 16, 2, ""), "node20")},
		{"gpu[1-2]-ib", []string{"gpu1-ib", "gpu2-ib"}},
		{"rack[1-2]-node[1-3]", []string{"rack1-node1", "rack1-node2", "rack1-node3", "rack2-node1", "rack2-node2", "rack2-node3"}},
		{"a,b,c", []string{"a", "b", "c"}},
		{"node[1-3,5-6]", []string{"node1", "node2", "node3", "node5", "node6"}},
		{" a , b ,\tc ", []string{"a", "b", "c"}},
		{"node[1-010]", seq("node", 1, 10, 1, "")},
		{"node[08-100]", seq("node", 8, 100, 2, "")},
		{"node[001-10]", seq("node", 1, 10, 3, "")},
		{"n[01-3]", []string{"n01", "n02", "n03"}},
		{"n[1-03]", []string{"n1", "n2", "n3"}},
		{"n[9-11]", []string{"n9", "n10", "n11"}},
		{"[1-3]", []string{"1", "2", "3"}},
		{"n[0]", []string{"n0"}},
		{"n[00]", []string{"n00"}},
		{"n[7-7]", []string{"n7"}},
		{"n[1-2][3-4]", []string{"n13", "n14", "n23", "n24"}},
		{"n[1-3,2]", []string{"n1", "n2", "n3", "n2"}},
		{"n[3,1-2]", []string{"n3", "n1", "n2"}},
		{"a,a", []string{"a", "a"}},
		{"n[1-2],n[2-3]", []string{"n1", "n2", "n2", "n3"}},
		{"x[1-2].y[01-02]z", []string{"x1.y01z", "x1.y02z", "x2.y01z", "x2.y02z"}},
		// Slurm's order for three or more brackets, as scontrol prints it.
		{"x[1-2].y[1-2]-z[1-2]", []string{
			"x1.y1-z1", "x1.y1-z2", "x2.y1-z1", "x2.y1-z2", "x1.y2-z1", "x1.y2-z2", "x2.y2-z1", "x2.y2-z2",
		}},
		{"a[1-2]b[1-2]c[1-2]d[1-2]", []string{
			"a1b1c1d1", "a1b1c1d2", "a2b1c1d1", "a2b1c1d2", "a1b2c1d1", "a1b2c1d2", "a2b2c1d1", "a2b2c1d2",
			"a1b1c2d1", "a1b1c2d2", "a2b1c2d1", "a2b1c2d2", "a1b2c2d1", "a1b2c2d2", "a2b2c2d1", "a2b2c2d2",
		}},
		{"10.0.0.[1-3]", []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}},
		{"n1-3", []string{"n1-3"}},
		{"n[" + strings.Repeat("0", 254) + "]", []string{"n" + strings.Repeat("0", 254)}},
		{"n[18446744073709551614-18446744073709551615]", []string{"n18446744073709551614", "n18446744073709551615"}},
	}
	for _, c := range cases {
		got, err := Expand(c.in)
		if err != nil {
			t.Errorf("Expand(%q): %v", c.in, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExpandErrors(t *testing.T) {
	cases := []struct {
		in     string
		column int
		msg    string
	}{
		{"", 0, "empty"},
		{"  ", 0, "empty"},
		{"a,,b", 3, "empty item"},
		{"a,", 3, "empty item"},
		{",a", 1, "empty item"},
		{"node[1-3", 5, `"[" is never closed`},
		{"node1-3]", 8, `"]" without a matching "["`},
		{"n[[1-3]]", 3, `"[" inside brackets`},
		{"n[1-2]],", 7, `"]" without`},
		{"node[]", 6, "empty range"},
		{"n[1,,2]", 5, "empty range"},
		{"n[1-2,]", 7, "empty range"},
		{"node[5-3]", 6, `descending range "5-3"`},
		{"node[a-c]", 6, "decimal numbers only"},
		{"n[1a]", 4, "decimal numbers only"},
		{"n[1-]", 5, "missing number"},
		{"n[-3]", 3, "missing number"},
		{"n[1-2-3]", 6, "decimal numbers only"},
		{"n[ 1-3]", 3, "decimal numbers only"},
		{"n[99999999999999999999]", 3, "too large"},
		{"a b", 2, "white space inside a host name"},
		{"node1:22", 6, `":" in a host name`},
		{"root@node1", 5, `character '@'`},
		{"node1#x", 6, `character '#'`},
		{"n\x00", 2, "byte 0x00"},
		{"n[0-99999999999]", 1, "more than 1048576 hosts"},
		{strings.Repeat("x", 256), 1, "longer than 255"},
		{"n[" + strings.Repeat("0", 255) + "-1]", 1, "longer than 255"},
	}
	for _, c := range cases {
		got, err := Expand(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Expand(%q) = %q, %v; want a *SyntaxError", c.in, got, err)
			continue
		}
		if se.List != c.in || se.Column != c.column || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("Expand(%q) error %q: want column %d and message holding %q", c.in, err, c.column, c.msg)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", c.in)) {
			t.Errorf("Expand(%q) error %q does not name the input", c.in, err)
		}
	}
}

func TestExpandCap(t *testing.T) {
	got, err := Expand("n[1-1048576]")
	if err != nil || len(got) != MaxHosts || got[MaxHosts-1] != "n1048576" {
		t.Fatalf("a list of exactly MaxHosts hosts: got %d hosts, %v", len(got), err)
	}
	over := []string{
		"n[1-1048577]",
		"n[1-1048576],m",
		"a[1-1024]b[1-1025]",
		"a[1-2]b[1-2]c[1-2]d[1-2]e[1-2]f[1-2]g[1-2]h[1-2]i[1-2]j[1-2]k[1-2]l[1-2]m[1-2]n[1-2]o[1-2]p[1-2]q[1-2]r[1-2]s[1-2]t[1-2]u[1-2]",
		"n[0-18446744073709551615]",
		"n[0-9223372036854775807,0-9223372036854775807]",
	}
	for _, list := range over {
		if _, err := Expand(list); err == nil || !strings.Contains(err.Error(), "more than 1048576 hosts") {
			t.Errorf("Expand(%q): %v; want the host cap error", list, err)
		}
	}
}

// TestExpandCapAllocatesNothing shows the count is checked before any host is
// built: refusing a list of 10^11 hosts must not cost even one megabyte.
func TestExpandCapAllocatesNothing(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 10; i++ {
		if _, err := Expand("n[0-99999999999],m[0-1000]x[0-1048]"); err == nil {
			t.Fatal("a list of 10^11 hosts was accepted")
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("refusing oversized lists allocated %d bytes", grew)
	}
}
