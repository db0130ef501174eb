// Package ssh runs the real ioswarm binary against a cluster of namespaced
// nodes with real OpenSSH servers (see test/cluster): the SSH launcher's
// self-copy and cache, host key checks, connect timeouts, rank failures and
// cleanup on every node, and the `hosts` preflight. The tests need root and
// skip, saying why, without it.
//
// The launcher runs in the cluster's head namespace with HOME left alone:
// the cluster's ssh_config (--ssh-config), which names each node's address,
// the run's key and its known_hosts, and the run's key (--identity) are
// passed as flags, as a user would with a config of their own.
package ssh
