package main

import (
	"strings"
	"testing"

	"ioswarm/hostlist"
	"ioswarm/launcher"
)

func TestAdvertised(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{":7000", ""},
		{"0.0.0.0:7000", ""},
		{"[::]:0", ""},
		{"10.1.2.3:7000", "10.1.2.3"},
		{"[fe80::1]:7000", "fe80::1"},
		{"head-ib:0", "head-ib"},
	}
	for _, c := range cases {
		got, err := advertised(c.in)
		if err != nil || got != c.want {
			t.Errorf("advertised(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := advertised("10.1.2.3"); err == nil {
		t.Error("an address without a port was accepted")
	}
}

// An IOzone client file names iozone's binary, which cannot be a rank:
// that column is dropped (with a note), unless it names ioswarm.
func TestTargetsFromIOzoneFile(t *testing.T) {
	entries := []hostlist.Entry{
		{Host: "n1", Dir: "/gpfs/a", Exe: "/usr/bin/iozone"},
		{Host: "n2", User: "me", Port: 2222, Dir: "/gpfs/b", Exe: "/opt/ioswarm/bin/ioswarm"},
	}
	var log strings.Builder
	ts := targetsFrom(entries, "iozone client file tl", launcher.NewLineWriter(&log))
	want := []launcher.Target{
		{Rank: 0, Host: "n1", Dir: "/gpfs/a"},
		{Rank: 1, Host: "n2", User: "me", Port: 2222, Dir: "/gpfs/b", Exe: "/opt/ioswarm/bin/ioswarm"},
	}
	for i := range want {
		if ts[i] != want[i] {
			t.Errorf("target %d = %+v, want %+v", i, ts[i], want[i])
		}
	}
	if !strings.Contains(log.String(), "/usr/bin/iozone") {
		t.Errorf("no note about the dropped binary column: %q", log.String())
	}
}
