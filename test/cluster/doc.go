// Package cluster brings up a cluster of SSH "nodes" on one machine for
// integration tests, and tears it down again.
//
// The work is done by cluster.sh beside this file: every node is a network
// namespace joined to a private bridge, with its own OpenSSH server, its own
// hostname (UTS namespace) and its own /tmp, /run, /root and /etc/hosts
// (mount namespace); the rest of the filesystem is shared, as a parallel
// filesystem would be. The launcher under test runs in a head namespace on
// the same bridge. No namespace has a default route, so nothing a test does
// can reach beyond the machine. Keys, known_hosts and ssh_config are made per
// run, and host keys are checked strictly.
//
// Options.User adds a user who is not root that every node accepts the
// run's key for, with a home of its own on each node. cluster.sh's
// gluster-* subcommands (gluster.sh) serve a GlusterFS volume from one more
// namespaced node to the nodes' own mount namespaces; package test/gluster
// wraps them for tests, through Script. The ceph-* subcommands (cephfs.sh)
// serve CephFS the same way, mounted with ceph-fuse and a small object
// cacher; StartCephFS wraps them, and CephFS.Counters reads a node's
// ceph-fuse counters with the ceph CLI, apart from anything under test.
//
// Start needs root, iproute2 and util-linux's nsenter and unshare; without
// them it skips the test. It installs openssh-server from apt when missing.
// Delay, which adds latency to a node's link without sch_netem, needs
// iptables (installed from apt when missing) and the go command, to build
// the nfdelay program beside this file.
//
// This package imports only the standard library. It must not import any
// ioswarm package, so that the tests of every package can use it.
package cluster
