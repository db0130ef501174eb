package main

import (
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"ioswarm/hostlist"
	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/launcher/sshlaunch"
	"ioswarm/selfbin"
)

// launcherFrom picks the launcher and the nodes from the flags and the
// environment, and says which it chose.
func launcherFrom(o *launchOptions, log *launcher.LineWriter) (launcher.Launcher, []launcher.Target, error) {
	if o.HostsGiven && strings.TrimSpace(o.Hosts) == "" {
		return nil, nil, usage.Errorf("--hosts is empty: name the nodes (a host file or a list such as node[1-4]), or leave --hosts out to run on this machine")
	}
	if o.RemoteBin != "" && !strings.HasPrefix(o.RemoteBin, "/") {
		return nil, nil, flagError("remote-bin", o.RemoteBin, fmt.Errorf("must be an absolute path"))
	}
	adv, err := advertised(o.Listen)
	if err != nil {
		return nil, nil, flagError("listen", o.Listen, err)
	}
	kind := o.Launcher
	switch kind {
	case "auto":
		switch {
		case o.Hosts != "":
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
		return srunLauncher(o, adv, log)
	case "ssh":
		return sshLauncher(o, adv, log)
	}
	if o.Hosts != "" {
		return nil, nil, usage.Errorf("--hosts given with --launcher local, which runs every rank on this machine; drop one of them")
	}
	self, err := selfbin.Self()
	if err != nil {
		return nil, nil, err
	}
	return &launcher.Local{Binary: self.Path, Log: log}, nil, nil
}

// sshLauncher reads the host list and the SSH flags.
func sshLauncher(o *launchOptions, adv string, log *launcher.LineWriter) (launcher.Launcher, []launcher.Target, error) {
	if o.Hosts == "" {
		return nil, nil, usage.Errorf("--launcher ssh needs --hosts (a host file or a list such as node[1-4])")
	}
	entries, source, err := o.hostEntries()
	if err != nil {
		return nil, nil, flagError("hosts", o.Hosts, err)
	}
	if len(entries) == 0 {
		return nil, nil, flagError("hosts", o.Hosts, fmt.Errorf("%s names no node", source))
	}
	l, err := sshFrom(o, adv, log)
	if err != nil {
		return nil, nil, err
	}
	return l, targetsFrom(entries, source, log), nil
}

func sshFrom(o *launchOptions, adv string, log *launcher.LineWriter) (*sshlaunch.SSH, error) {
	self, err := selfbin.Self()
	if err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("SSH needs a home directory for ~/.ssh: %w", err)
	}
	l := &sshlaunch.SSH{
		Binary: self.Path, BinaryHash: self.Hash, RemoteBin: o.RemoteBin, User: o.SSHUser, Advertise: adv,
		Home: home, LocalUser: localUser(), AgentSocket: os.Getenv("SSH_AUTH_SOCK"),
		ConnectTimeout: o.ConnectTimeout, Fanout: o.SSHFanout, Tree: o.CopyTree, Log: log,
		ConfigFiles: []string{filepath.Join(home, ".ssh", "config"), "/etc/ssh/ssh_config"},
	}
	if f := o.SSHConfig; f != "" {
		if _, err := os.Stat(f); err != nil {
			return nil, flagError("ssh-config", f, err)
		}
		l.ConfigFiles = []string{f}
	}
	if f := o.Identity; f != "" {
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
		log.Printf("note: %s: the binary column (%s) is not ioswarm; ioswarm places its own binary on each node\n", source, ignored)
	}
	return targets
}

func localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// joinFactor times --connect-timeout is how long started ranks have to
// join: a rank dials as soon as it runs, but under srun the step itself
// starts after srun does, which takes seconds on a busy cluster.
const joinFactor = 3
