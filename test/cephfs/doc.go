// Package cephfs holds integration tests that run ioswarm on a real
// CephFS, served by package cluster's ceph-up (mon, mgr, osd and mds on
// one more namespaced node) and mounted with ceph-fuse in every node's own
// mount namespace, each ceph-fuse with a small object cacher: a client
// cache outside the kernel page cache, which drop_caches leaves full.
//
// The tests run the command lines a careful user would (a plain run, a
// run with --read-shift 0, IOzone's two commands over a -+m list, a
// reread, a reused job read twice), as root and as a user who is not root,
// and hold every read phase to one rule: its figure came from the servers
// (each node received at least 95% of what it read, by its ceph-fuse's own
// counters read with the ceph CLI) or the phase carries a cache warning.
//
// They need root, /dev/fuse and the ceph-mon ceph-mgr ceph-osd ceph-mds
// ceph-fuse packages (scripts/test.sh installs them); without them they
// skip and say why.
package cephfs
