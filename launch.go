package main

import (
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/hostlist"
	"ioswarm/internal/usage"
	"ioswarm/launcher"
)

// launchFlags choose where ranks run; shared by run, sweep and hosts.
func launchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "hosts", Usage: "nodes: a host file, an IOzone -+m client file, or a list such as node[01-16],gpu1 (threads go round-robin in this order)"},
		&cli.StringFlag{Name: "launcher", Value: "auto", Usage: "auto, local, ssh or srun (auto: srun inside a Slurm allocation, ssh with --hosts, else local)"},
		&cli.StringFlag{Name: "ssh-user", Usage: "login name for hosts that name none (default: ~/.ssh/config's User, then your own)"},
		&cli.StringFlag{Name: "identity", Usage: "private key `FILE` to log in with, tried before ssh-agent's keys and ~/.ssh/id_*"},
		&cli.StringFlag{Name: "ssh-config", Usage: "ssh_config `FILE` to read instead of ~/.ssh/config and /etc/ssh/ssh_config"},
		&cli.DurationFlag{Name: "connect-timeout", Value: 10 * time.Second, Usage: "per node: connect, handshake and log in within this; a connection silent this long is dropped"},
		&cli.StringFlag{Name: "remote-bin", Usage: "`PATH` of this very ioswarm build installed on every node (nothing is copied)"},
		&cli.StringFlag{Name: "listen", Usage: "`ADDR:PORT` the coordinator listens on and ranks dial (default: each node dials this machine's address as its SSH connection, or its route to the node under srun, sees it)"},
		&cli.IntFlag{Name: "ssh-fanout", Value: 32, Usage: "nodes contacted at once"},
	}
}

// launchFrom picks the launcher and the nodes from the flags and the
// environment, and says which it chose.
func launchFrom(c *cli.Context, log *launcher.LineWriter) (launcher.Launcher, []launcher.Target, error) {
	kind := c.String("launcher")
	hosts := c.String("hosts")
	switch kind {
	case "auto":
		switch {
		case hosts != "":
			kind = "ssh"
		case srunDetected():
			kind = "srun"
		default:
			kind = "local"
		}
	case "local", "ssh", "srun":
	default:
		return nil, nil, usage.Errorf("--launcher %q: must be auto, local, ssh or srun", kind)
	}
	switch kind {
	case "srun":
		return srunLauncher(c, log)
	case "ssh":
		return sshLauncher(c, log)
	}
	if hosts != "" {
		return nil, nil, usage.Errorf("--hosts given with --launcher local, which runs every rank on this machine; drop one of them")
	}
	bin, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	return &launcher.Local{Binary: bin, Log: log}, nil, nil
}

// sshLauncher reads the host list and the SSH flags.
func sshLauncher(c *cli.Context, log *launcher.LineWriter) (launcher.Launcher, []launcher.Target, error) {
	spec := c.String("hosts")
	if spec == "" {
		return nil, nil, usage.Errorf("--launcher ssh needs --hosts (a host file or a list such as node[1-4])")
	}
	entries, source, err := hostlist.Load(spec)
	if err != nil {
		return nil, nil, flagError("hosts", spec, err)
	}
	if len(entries) == 0 {
		return nil, nil, flagError("hosts", spec, fmt.Errorf("%s names no host", source))
	}
	l, err := sshFromFlags(c, log)
	if err != nil {
		return nil, nil, err
	}
	return l, targetsFrom(entries, source, log), nil
}

func sshFromFlags(c *cli.Context, log *launcher.LineWriter) (*launcher.SSH, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own binary: %w", err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("SSH needs a home directory for ~/.ssh: %w", err)
	}
	l := &launcher.SSH{
		Binary: bin, RemoteBin: c.String("remote-bin"), User: c.String("ssh-user"),
		Home: home, LocalUser: localUser(), AgentSocket: os.Getenv("SSH_AUTH_SOCK"),
		ConnectTimeout: c.Duration("connect-timeout"), Fanout: c.Int("ssh-fanout"), Log: log,
		ConfigFiles: []string{filepath.Join(home, ".ssh", "config"), "/etc/ssh/ssh_config"},
	}
	if f := c.String("ssh-config"); f != "" {
		if _, err := os.Stat(f); err != nil {
			return nil, flagError("ssh-config", f, err)
		}
		l.ConfigFiles = []string{f}
	}
	if f := c.String("identity"); f != "" {
		if _, err := os.Stat(f); err != nil {
			return nil, flagError("identity", f, err)
		}
		l.Identities = []string{f}
	}
	if l.ConnectTimeout <= 0 {
		return nil, flagError("connect-timeout", l.ConnectTimeout.String(), fmt.Errorf("must be positive"))
	}
	if l.Fanout < 1 {
		return nil, flagError("ssh-fanout", fmt.Sprint(l.Fanout), fmt.Errorf("must be at least 1"))
	}
	if l.RemoteBin != "" && !strings.HasPrefix(l.RemoteBin, "/") {
		return nil, flagError("remote-bin", l.RemoteBin, fmt.Errorf("must be an absolute path"))
	}
	if l.Advertise, err = advertised(c.String("listen")); err != nil {
		return nil, flagError("listen", c.String("listen"), err)
	}
	return l, nil
}

// advertised is the host part of --listen when it names one address:
// ranks dial that. A wildcard (":7000", "0.0.0.0:7000") names none, and
// each rank dials the address its SSH connection came from.
func advertised(listen string) (string, error) {
	if listen == "" {
		return "", nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("want ADDRESS:PORT (port 0 picks a free one)")
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		return "", nil
	}
	return host, nil
}

// targetsFrom turns host list entries into launch targets. An IOzone
// client file names the iozone binary in its third column; that path is
// used only when it is an ioswarm binary, since running iozone as a rank
// cannot work.
func targetsFrom(entries []hostlist.Entry, source string, log *launcher.LineWriter) []launcher.Target {
	targets := make([]launcher.Target, len(entries))
	ignored := ""
	for i, e := range entries {
		targets[i] = launcher.Target{Rank: i, Host: e.Host, User: e.User, Port: e.Port, Dir: e.Dir, Exe: e.Exe}
		if e.Exe != "" && !strings.HasPrefix(filepath.Base(e.Exe), "ioswarm") {
			ignored = e.Exe
			targets[i].Exe = ""
		}
	}
	if ignored != "" {
		log.Printf("note: %s: the binary column (%s) is not ioswarm; ioswarm places its own binary on each host\n", source, ignored)
	}
	return targets
}

// iozoneClients is the line count of --hosts when it is an IOzone -+m
// client file (IOzone runs one child per line), else 0.
func iozoneClients(c *cli.Context) (int, string) {
	spec := c.String("hosts")
	if spec == "" {
		return 0, ""
	}
	entries, source, err := hostlist.Load(spec)
	if err != nil || !strings.HasPrefix(source, "iozone client file") {
		return 0, ""
	}
	return len(entries), source
}

func localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
