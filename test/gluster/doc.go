// Package gluster serves a real GlusterFS volume to the nodes of a
// namespaced test cluster (package cluster), for integration tests that run
// ioswarm on a distributed filesystem, and holds those tests.
//
// Start runs `cluster.sh gluster-up`: glusterd on one extra namespaced
// storage node, a Distribute volume of two bricks on the machine's disk
// under the cluster's directory, mounted over FUSE by every node inside
// the node's own mount namespace. The root namespace sees only the empty
// mount point, and the storage node's name resolves only inside the
// namespaces. Teardown, also when a test fails, unmounts the volume on
// every node, stops and deletes it and stops glusterd by its recorded PID.
//
// The volume needs root, /dev/fuse, and the glusterfs-server and
// glusterfs-client packages (scripts/test.sh installs them); without any
// of them Start skips the test and says why.
//
// This package imports only the standard library and package cluster: no
// ioswarm package, so that any package's tests may use it.
package gluster
