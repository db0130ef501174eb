package hostlist

import (
	"slices"
	"strings"
	"testing"
)

func TestParseInline(t *testing.T) {
	cases := []struct {
		in   string
		want []Entry
	}{
		{"node1", []Entry{{Host: "node1"}}},
		{"root@node[1-4]:2222", []Entry{
			{User: "root", Host: "node1", Port: 2222}, {User: "root", Host: "node2", Port: 2222},
			{User: "root", Host: "node3", Port: 2222}, {User: "root", Host: "node4", Port: 2222},
		}},
		{"a,bob@b:22, c", []Entry{{Host: "a"}, {User: "bob", Host: "b", Port: 22}, {Host: "c"}}},
		{"n[1-2]:22,m", []Entry{{Host: "n1", Port: 22}, {Host: "n2", Port: 22}, {Host: "m"}}},
		{"[fe80::1]:22", []Entry{{Host: "fe80::1", Port: 22}}},
		{"[fe80::1%eth0]:2022", []Entry{{Host: "fe80::1%eth0", Port: 2022}}},
		{"[::1]", []Entry{{Host: "::1"}}},
		{"::1", []Entry{{Host: "::1"}}},
		{"u@::1", []Entry{{User: "u", Host: "::1"}}},
		{"u@[2001:db8::7]:22,v@10.0.0.[1-2]", []Entry{
			{User: "u", Host: "2001:db8::7", Port: 22}, {User: "v", Host: "10.0.0.1"}, {User: "v", Host: "10.0.0.2"},
		}},
		{"10.0.0.1:65535", []Entry{{Host: "10.0.0.1", Port: 65535}}},
		{"svc$@n", []Entry{{User: "svc$", Host: "n"}}},
	}
	for _, c := range cases {
		got, err := ParseInline(c.in)
		if err != nil {
			t.Errorf("ParseInline(%q): %v", c.in, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ParseInline(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseInlineErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"", "empty"},
		{"a,,b", "empty item"},
		{"n:0", `port "0" is not a number from 1 to 65535`},
		{"n:65536", `port "65536"`},
		{"n:", `port ""`},
		{"n:+22", `port "+22"`},
		{"n:ssh", `port "ssh"`},
		{"@n", "empty user name"},
		{"a b@n", "in a user name"},
		{"a@b@c", `character '@' in a host name`},
		{"[fe80::1]x", `unexpected "x" after the IPv6 address`},
		{"[fe80::1]:", `port ""`},
		{"fe80::zz", "is not an IPv6 address"},
		{"[1.2.3.4:5]", "is not an IPv6 address"},
		{"n[1-2]::22", "too many"},
		{":22", "empty"},
		{"node[1-3", "never closed"},
		{"n[0-1048575],m", "more than 1048576 hosts"},
		{"n[0-1048575],::1", "more than 1048576 hosts"},
	}
	for _, c := range cases {
		got, err := ParseInline(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseInline(%q) = %+v, %v; want an error holding %q", c.in, got, err, c.msg)
		}
	}
}

func TestEntryString(t *testing.T) {
	cases := []struct {
		e    Entry
		want string
	}{
		{Entry{Host: "node1"}, "node1"},
		{Entry{User: "root", Host: "node1", Port: 2222, Dir: "/x"}, "root@node1:2222"},
		{Entry{Host: "fe80::1", Port: 22}, "[fe80::1]:22"},
		{Entry{User: "u", Host: "::1"}, "u@::1"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.e, got, c.want)
		}
		if back, err := ParseInline(c.e.String()); err != nil || back[0].User != c.e.User ||
			back[0].Host != c.e.Host || back[0].Port != c.e.Port {
			t.Errorf("ParseInline(%q) = %+v, %v; want the entry back", c.e.String(), back, err)
		}
	}
}
