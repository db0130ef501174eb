package hostlist

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Entry is one host slot: where to log in and, when the source says so, where
// to work and which binary to run there.
type Entry struct {
	User string // login name; empty means the SSH default
	Host string // host name or address; an IPv6 address is held without brackets
	Port int    // SSH port; 0 means the default
	Dir  string // per-host working directory; empty means the run's directory
	Exe  string // per-host path of the binary (IOzone client files); empty means the default
}

// String prints the login part of e as a user would type it
// ("root@node1:2222", "[fe80::1]:22").
func (e Entry) String() string {
	host := e.Host
	if e.Port != 0 {
		host = net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	}
	if e.User != "" {
		return e.User + "@" + host
	}
	return host
}

// ParseInline reads a --hosts value that is not a file: a comma list whose
// items are hostlist expressions with an optional "user@" prefix and ":port"
// suffix. "root@node[1-4]:2222" gives four entries. An IPv6 address is written
// "[fe80::1]:22" with a port, or bare ("::1") without one.
func ParseInline(s string) ([]Entry, error) {
	return parseInlineLimit(s, MaxHosts)
}

func parseInlineLimit(s string, limit int) ([]Entry, error) {
	items, err := splitTop(s)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, it := range items {
		got, err := parseSpec(s[it.start:it.end], limit-len(entries))
		if err != nil {
			return nil, err
		}
		entries = append(entries, got...)
	}
	return entries, nil
}

// parseSpec reads one item: [user@]hosts[:port], where hosts is a hostlist
// item or an IPv6 address.
func parseSpec(spec string, limit int) ([]Entry, error) {
	user, rest, hasUser := strings.Cut(spec, "@")
	if !hasUser {
		user, rest = "", spec
	} else if err := checkUser(spec, user); err != nil {
		return nil, err
	}
	hostPart, port, err := splitPort(spec, rest)
	if err != nil {
		return nil, err
	}
	var hosts []string
	if strings.Contains(hostPart, ":") {
		hosts, err = parseIPv6(spec, hostPart, limit)
	} else {
		hosts, err = expandLimit(hostPart, limit)
	}
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(hosts))
	for k, h := range hosts {
		entries[k] = Entry{User: user, Host: h, Port: port}
	}
	return entries, nil
}

// splitPort separates an optional ":port". A bracketed part holding a colon
// is an IPv6 address ("[fe80::1]:22"); two or more colons without brackets
// are a bare IPv6 address with no port.
func splitPort(spec, rest string) (string, int, error) {
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end > 0 && strings.Contains(rest[1:end], ":") {
			after := rest[end+1:]
			if after == "" {
				return rest[1:end], 0, nil
			}
			if after[0] != ':' {
				return "", 0, fmt.Errorf("invalid host %q: unexpected %q after the IPv6 address", spec, after)
			}
			port, err := parsePort(spec, after[1:])
			return rest[1:end], port, err
		}
	}
	switch strings.Count(rest, ":") {
	case 0:
		return rest, 0, nil
	case 1:
		host, p, _ := strings.Cut(rest, ":")
		port, err := parsePort(spec, p)
		return host, port, err
	}
	if strings.ContainsAny(rest, "[]") {
		return "", 0, fmt.Errorf("invalid host %q: too many \":\" (write an IPv6 address with a port as [addr]:port)", spec)
	}
	return rest, 0, nil
}

func parsePort(spec, p string) (int, error) {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 || p[0] == '+' || p[0] == '-' {
		return 0, fmt.Errorf("invalid host %q: port %q is not a number from 1 to 65535", spec, p)
	}
	return n, nil
}

func parseIPv6(spec, addr string, limit int) ([]string, error) {
	if limit < 1 {
		return nil, fmt.Errorf("invalid host %q: the list names more than %d hosts", spec, MaxHosts)
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil || !ip.Is6() {
		return nil, fmt.Errorf("invalid host %q: %q is not an IPv6 address", spec, addr)
	}
	return []string{addr}, nil
}

// checkUser accepts the portable user-name characters; anything else is more
// likely a stray separator than a real login.
func checkUser(spec, user string) error {
	if user == "" {
		return fmt.Errorf("invalid host %q: empty user name before \"@\"", spec)
	}
	for i := 0; i < len(user); i++ {
		if c := user[i]; !isNameByte(c) && c != '$' {
			return fmt.Errorf("invalid host %q: %s", spec, badByteMsg(c, "user name"))
		}
	}
	return nil
}
