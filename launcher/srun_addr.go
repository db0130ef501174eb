package launcher

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"time"

	"ioswarm/hostlist"
)

// addressTimeout bounds the scontrol query and each name lookup.
const addressTimeout = 30 * time.Second

// addresses returns, per target, the address by which its node reaches
// this machine: the source address this machine would use towards the
// node's NodeAddr, which is the network Slurm itself talks over.
func (l *Srun) addresses(ctx context.Context, targets []Target) ([]string, error) {
	out := make([]string, len(targets))
	if l.Advertise != "" {
		for i := range out {
			out[i] = l.Advertise
		}
		return out, nil
	}
	var hosts []string
	for _, t := range targets {
		if !slices.Contains(hosts, t.Host) {
			hosts = append(hosts, t.Host)
		}
	}
	addrs := l.slurmAddrs(ctx, hosts)
	var herrs HostErrors
	found := map[string]string{}
	for i, t := range targets {
		src, ok := found[t.Host]
		if !ok {
			var err error
			if src, err = sourceFor(ctx, l.resolver, orDefault(addrs[t.Host], t.Host)); err != nil {
				herrs = append(herrs, &HostError{Host: t.Host, Rank: t.Rank, Err: err})
				continue
			}
			found[t.Host] = src
		}
		out[i] = src
	}
	if len(herrs) > 0 {
		return nil, herrs
	}
	return out, nil
}

// slurmAddrs asks slurmctld for the NodeAddr of each node. Where that fails
// the node names are resolved instead, which is what NodeAddr defaults to.
func (l *Srun) slurmAddrs(ctx context.Context, nodes []string) map[string]string {
	ctx, cancel := context.WithTimeout(ctx, addressTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.Tools.scontrol(), "show", "node", "-o", hostlist.Compress(nodes))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		l.Log.Printf("note: srun: scontrol show node: %v %s; resolving node names instead\n",
			err, bytes.TrimSpace(stderr.Bytes()))
		return map[string]string{}
	}
	return nodeAddrs(string(out))
}

// sourceFor is this machine's source address towards addr (an IP address
// or a name, looked up with r, nil meaning the system's resolver).
// Connecting a UDP socket only asks the kernel for a route; no packet is
// sent.
func sourceFor(ctx context.Context, r *net.Resolver, addr string) (string, error) {
	ip := net.ParseIP(addr)
	if ip == nil {
		ctx, cancel := context.WithTimeout(ctx, addressTimeout)
		defer cancel()
		if r == nil {
			r = net.DefaultResolver
		}
		ips, err := r.LookupIP(ctx, "ip", addr)
		if err != nil || len(ips) == 0 {
			return "", fmt.Errorf("resolve node address %s: %v", addr, err)
		}
		ip = ips[0]
		for _, c := range ips {
			if c.To4() != nil { // the first IPv4 address, as Slurm itself prefers
				ip = c
				break
			}
		}
	}
	conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: ip, Port: 9})
	if err != nil {
		return "", fmt.Errorf("no route from here to node address %s: %w", ip, err)
	}
	defer conn.Close()
	return conn.LocalAddr().(*net.UDPAddr).IP.String(), nil
}
