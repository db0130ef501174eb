// Package clientcache finds, for a directory, the client cache its mount
// keeps outside the kernel page cache, how much it can hold, and where the
// client shows them, its hit and miss byte counters.
//
// Such caches survive `echo 3 > /proc/sys/vm/drop_caches` and are invisible
// to mincore, so a read that looks cold to the kernel may be served from
// memory all the same. Each kind of client has one probe (kinds.go): it
// says whether a mount is of its kind and, where the client exposes them,
// reads the cache's size and counters. With no probe possible the kind is
// still known from the filesystem type; the size and counters stay unknown.
//
// Tested against real clients: ceph-fuse (its object cacher, through the
// admin socket of the mount's ceph-fuse process; Ceph 16.2). Written from
// the clients' documentation and not tested on a real system: GPFS
// (`mmdiag --config` pagepool) and Lustre (llite max_cached_mb and
// read_ahead_stats through lctl).
//
// It imports the standard library, ioswarm/mounts and ioswarm/units only; nodefacts and
// the rank use it.
package clientcache
