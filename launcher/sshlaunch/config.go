package sshlaunch

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kevinburke/ssh_config"
)

// sshConfig is the user's ssh_config files, first file first: as with
// OpenSSH, the first value found for a keyword wins.
type sshConfig struct {
	files []*ssh_config.Config
}

// loadSSHConfig parses the files that exist among paths; a file that is
// there but does not parse is an error, since ignoring it would silently
// drop the user's HostName, User or ProxyJump.
func loadSSHConfig(paths []string) (*sshConfig, error) {
	c := &sshConfig{}
	for _, p := range paths {
		f, err := os.Open(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ssh config: %w", err)
		}
		cfg, err := ssh_config.Decode(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("ssh config %s: %v (point --ssh-config at a file ioswarm can read)", p, err)
		}
		c.files = append(c.files, cfg)
	}
	return c, nil
}

func (c *sshConfig) get(alias, key string) string {
	for _, f := range c.files {
		if v, err := f.Get(alias, key); err == nil && v != "" {
			return v
		}
	}
	return ""
}

func (c *sshConfig) getAll(alias, key string) []string {
	var all []string
	for _, f := range c.files {
		if v, err := f.GetAll(alias, key); err == nil {
			all = append(all, v...)
		}
	}
	return all
}

// hop is one SSH server on the way to a node: the node itself, or a
// ProxyJump host before it.
type hop struct {
	Alias      string   // the name as written (host list or ProxyJump)
	Addr       string   // host:port to dial
	KeyName    string   // host:port to look up in known_hosts
	User       string   // login name
	Identities []string // IdentityFile entries, expanded
	OnlyIDs    bool     // IdentitiesOnly yes
	KnownHosts []string // known_hosts files, expanded
}

// route is how to reach one node: jumps (first hop first), then the node.
type route struct {
	Jumps []hop
	Node  hop
}

// resolver turns host list entries into routes, as OpenSSH would with the
// same config: the entry's user and port win over --ssh-user, which wins
// over the config's User, which wins over the local login name.
type resolver struct {
	cfg       *sshConfig
	home      string
	localUser string
	user      string // --ssh-user
}

func (r *resolver) route(host, user string, port int) (route, error) {
	node, err := r.hop(host, user, port)
	if err != nil {
		return route{}, err
	}
	rt := route{Node: node}
	if pc := r.cfg.get(host, "ProxyCommand"); pc != "" && !strings.EqualFold(pc, "none") {
		return route{}, fmt.Errorf("ssh config gives ProxyCommand for %s, which ioswarm does not run; use ProxyJump", host)
	}
	jump := r.cfg.get(host, "ProxyJump")
	if jump == "" || strings.EqualFold(jump, "none") {
		return rt, nil
	}
	for _, spec := range strings.Split(jump, ",") {
		u, h, p, err := splitLogin(strings.TrimSpace(spec))
		if err != nil {
			return route{}, fmt.Errorf("ssh config ProxyJump for %s: %w", host, err)
		}
		j, err := r.hop(h, u, p)
		if err != nil {
			return route{}, err
		}
		rt.Jumps = append(rt.Jumps, j)
	}
	return rt, nil
}

// hop resolves one server's settings. An explicit user or port (non-zero)
// overrides the config.
func (r *resolver) hop(alias, user string, port int) (hop, error) {
	h := hop{Alias: alias, User: user}
	if h.User == "" {
		h.User = r.user
	}
	if h.User == "" {
		h.User = r.cfg.get(alias, "User")
	}
	if h.User == "" {
		h.User = r.localUser
	}
	if port == 0 {
		if p := r.cfg.get(alias, "Port"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 65535 {
				return hop{}, fmt.Errorf("ssh config gives %s the port %q", alias, p)
			}
			port = n
		}
	}
	if port == 0 {
		port = 22
	}
	name := alias
	if hn := r.cfg.get(alias, "HostName"); hn != "" {
		name = strings.ReplaceAll(hn, "%h", alias)
	}
	ps := strconv.Itoa(port)
	h.Addr = net.JoinHostPort(name, ps)
	h.KeyName = h.Addr
	if ka := r.cfg.get(alias, "HostKeyAlias"); ka != "" {
		h.KeyName = net.JoinHostPort(ka, ps)
	}
	x := expander{home: r.home, localUser: r.localUser, remoteUser: h.User, host: name, alias: alias, port: ps}
	h.Identities = x.paths(r.cfg.getAll(alias, "IdentityFile"))
	h.OnlyIDs = strings.EqualFold(r.cfg.get(alias, "IdentitiesOnly"), "yes")
	h.KnownHosts = r.knownHosts(alias, x)
	return h, nil
}

// knownHosts lists the known_hosts files for a host: the config's
// UserKnownHostsFile and GlobalKnownHostsFile, else OpenSSH's defaults.
func (r *resolver) knownHosts(alias string, x expander) []string {
	user := firstFields(r.cfg.getAll(alias, "UserKnownHostsFile"))
	if len(user) == 0 {
		user = []string{"~/.ssh/known_hosts", "~/.ssh/known_hosts2"}
	}
	global := firstFields(r.cfg.getAll(alias, "GlobalKnownHostsFile"))
	if len(global) == 0 {
		global = []string{"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}
	}
	return x.paths(append(user, global...))
}

// firstFields splits the values of a keyword that takes several paths; only
// the first occurrence of the keyword counts, as in OpenSSH.
func firstFields(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	return strings.Fields(values[0])
}

// expander expands ~ and the % tokens ssh_config allows in paths.
type expander struct {
	home, localUser, remoteUser, host, alias, port string
}

func (x expander) paths(in []string) []string {
	var out []string
	for _, p := range in {
		if strings.EqualFold(p, "none") {
			continue
		}
		out = append(out, x.path(p))
	}
	return out
}

func (x expander) path(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(x.home, p[1:])
	}
	r := strings.NewReplacer("%%", "%", "%d", x.home, "%u", x.localUser, "%r", x.remoteUser,
		"%h", x.host, "%n", x.alias, "%p", x.port)
	return r.Replace(p)
}

// splitLogin reads "[user@]host[:port]" as ProxyJump writes it
// ("[fe80::1]:22" for IPv6).
func splitLogin(s string) (user, host string, port int, err error) {
	s = strings.TrimPrefix(s, "ssh://")
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		user, s = s[:i], s[i+1:]
	}
	host = s
	if h, p, e := net.SplitHostPort(s); e == nil {
		host = h
		port, err = strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return "", "", 0, fmt.Errorf("bad port in %q", s)
		}
	}
	if host == "" {
		return "", "", 0, fmt.Errorf("empty host in %q", s)
	}
	return user, host, port, nil
}
