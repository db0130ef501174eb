// Package sshlaunch is the SSH launcher: it connects to every node in
// parallel (golang.org/x/crypto/ssh, the user's ssh_config, known_hosts),
// places this binary in the node's private cache unless a verified copy
// is there (over SSH, or streamed from node to node: tree.go), and
// starts each node's ranks, the first in the session that found the copy.
// What its sessions run and say is rankproto's; what it offers the
// coordinator is launcher's Launcher and Starter.
//
// It is its own package, not a file group of launcher, because it is most
// of the launchers' weight and all of their network state; the name is not
// ssh so as not to shadow x/crypto/ssh, which every file here uses. It
// imports launcher, rankproto and binserve, and must not import barrier,
// rank or the coordinator.
package sshlaunch
