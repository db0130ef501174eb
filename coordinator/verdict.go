package coordinator

import (
	"fmt"
	"strings"

	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/units"
)

// Reason codes of a node's cache verdict (result.NodeVerdict.Reason).
// Storage: the read is shown to reach storage. The others say why it
// may not.
const (
	reasonDirect      = "direct"            // O_DIRECT bypasses the client's caches
	reasonUntouched   = "untouched"         // the node never wrote or read these bytes
	reasonSizing      = "sizing"            // the aggregate is twice every cache there is
	reasonDropCaches  = "drop-caches"       // page cache dropped where it is the only client cache
	reasonFadvise     = "fadvise"           // the job's pages evicted and shown gone, where the page cache is the only client cache
	reasonServerCache = "server-cache"      // --server-cache alone can hold the data
	reasonResident    = "resident"          // mincore saw the data in this node's page cache
	reasonReaders     = "readers-unknown"   // the kept job's manifest does not say who read its files
	reasonSharedKern  = "shared-kernel"     // another node on this kernel touched them, no drop
	reasonNoUntouched = "no-untouched-node" // the rotation ran out of nodes that never touched them
	reasonNodeLocal   = "node-local"        // --dir is the node's own: no other node can read its files
	reasonClientCache = "client-cache"      // the filesystem's client caches outside the page cache
	reasonNoDrop      = "no-drop"           // the page cache was not dropped (not root, or off)
	reasonTouched     = "touched-before"    // the node touched them, and nothing else shows storage
)

// pageCacheOnly are the filesystem types whose clients keep file data
// only in the kernel's page cache, so that drop_caches empties every
// client cache they have: local filesystems, Lustre (llite caches in the
// page cache), GlusterFS through FUSE (measured: 0% resident and storage
// rates after drop_caches), and the kernel NFS, CephFS and SMB clients
// without FS-Cache (mount option fsc). tmpfs and ramfs keep their data in
// memory by design: that memory is their storage.
var pageCacheOnly = map[string]bool{
	"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "f2fs": true, "jfs": true,
	"reiserfs": true, "vfat": true, "exfat": true, "lustre": true, "fuse.glusterfs": true,
	"nfs": true, "nfs4": true, "ceph": true, "cifs": true, "smb3": true, "tmpfs": true, "ramfs": true,
}

// clientCacheKind says why a filesystem's client may hold file data that
// drop_caches leaves in place, or "" when it caches only in the page
// cache. Unknown types are assumed to cache on their own: a verdict of
// storage must be shown, never guessed.
func clientCacheKind(fsType, options string) string {
	if hasMountOption(options, "fsc") {
		return "mounted with fsc: FS-Cache keeps file data on local disk"
	}
	switch {
	case fsType == "gpfs":
		return "gpfs caches file data in its pagepool"
	case fsType == "fuse.ceph-fuse":
		return "ceph-fuse caches file data in its object cacher"
	case fsType == "beegfs":
		return "BeeGFS's buffered client cache holds file data"
	case fsType == "wekafs":
		return "WekaFS's client caches file data"
	case fsType == "fuse.dfuse" || fsType == "fuse.daos":
		return "DAOS dfuse caches file data"
	case pageCacheOnly[fsType]:
		return ""
	case strings.HasPrefix(fsType, "fuse"):
		return fsType + " is not known to cache only in the page cache"
	case fsType == "":
		return "the filesystem type is unknown"
	}
	return fsType + " is not known to cache only in the page cache"
}

// fadviseEmpties says whether evicting a filesystem's files from the page
// cache with posix_fadvise(DONTNEED) empties every cache its client keeps
// of them, so that a residency of none, measured after it, shows the next
// read reaches storage. So it does where the client caches only in the
// page cache (cacheKind ""), except through FUSE: a FUSE daemon may keep
// file data of its own for as long as the kernel keeps the file's inode
// (GlusterFS's io-cache translator, where it is on), which drop_caches
// ends by making the kernel forget its inodes and evicting the pages of
// one file does not.
func fadviseEmpties(fsType, cacheKind string) bool {
	return cacheKind == "" && !strings.HasPrefix(fsType, "fuse")
}

func hasMountOption(options, name string) bool {
	for _, o := range strings.Split(options, ",") {
		if o == name || strings.HasPrefix(o, name+"=") {
			return true
		}
	}
	return false
}

// nodeRead is what is known of one node's part of a read phase.
type nodeRead struct {
	host    string
	rank    int // the node's first rank with threads
	fsType  string
	options string
	drop    settings.DropMethod // the weakest drop method the node's ranks used
	// touched: this node wrote or read, earlier in this job or in the
	// kept job, bytes it reads now. kernelTouched: another node on the
	// same kernel (one page cache) did.
	touched       bool
	kernelTouched bool
	// readersUnknown: the kept job's manifest does not say which nodes
	// read its files, so "untouched" cannot be shown.
	readersUnknown bool
	resident       float64
	residentPages  int64 // the pages resident is a fraction of; 0: nothing measured
}

// readCase is what holds for a whole read phase.
type readCase struct {
	direct bool
	// rotating: the job moves further reads to untouched nodes;
	// exhausted: for this phase no such placement was left.
	rotating, exhausted bool
	nodeLocal           bool // --dir is each node's own (marker test)
	clientCache         int64
	serverCache         int64
	total               int64
}

// ownDir adds to a storage verdict's detail, where --dir is each node's
// own, that the node reads what it wrote itself.
func (c readCase) ownDir(detail string) string {
	if c.nodeLocal {
		return detail + " (--dir is this node's own: it reads what it wrote)"
	}
	return detail
}

// sizingHolds is the seeds' rule against every cache there is: the
// aggregate at least twice what the clients and servers can hold, with
// the clients' caches known.
func (c readCase) sizingHolds() bool {
	return c.clientCache > 0 && c.total >= 2*(c.clientCache+c.serverCache)
}

// serverHolds says the servers' cache alone (--server-cache) could hold
// the phase's data twice over: no client-side measure helps then.
func (c readCase) serverHolds() bool {
	return c.serverCache > 0 && c.total < 2*c.serverCache
}

// nodeVerdict decides one node's verdict; the rules go from what cannot
// be escaped (the servers' cache, resident pages) to what shows storage.
func nodeVerdict(c readCase, n nodeRead) result.NodeVerdict {
	v := result.NodeVerdict{Host: n.host, Rank: n.rank, Verdict: result.VerdictMaybeCache}
	set := func(verdict, reason, detail string) result.NodeVerdict {
		v.Verdict, v.Reason, v.Detail = verdict, reason, detail
		return v
	}
	storage := func(reason, detail string) result.NodeVerdict { return set(result.VerdictStorage, reason, detail) }
	maybe := func(reason, detail string) result.NodeVerdict { return set(result.VerdictMaybeCache, reason, detail) }
	cacheKind := clientCacheKind(n.fsType, n.options)
	switch {
	case c.serverHolds():
		return maybe(reasonServerCache, fmt.Sprintf("total %s is under twice the servers' cache (%s)",
			units.FormatBytes(c.total), units.FormatBytes(c.serverCache)))
	case c.direct:
		return storage(reasonDirect, "O_DIRECT reads bypass the client's caches")
	case n.resident > residentLimit:
		return maybe(reasonResident, fmt.Sprintf("%.0f%% of the pages it read were in its page cache as the phase began", 100*n.resident))
	case c.sizingHolds():
		return storage(reasonSizing, fmt.Sprintf("total %s is at least twice every cache the nodes have (clients %s, servers %s)",
			units.FormatBytes(c.total), units.FormatBytes(c.clientCache), units.FormatBytes(c.serverCache)))
	case !n.touched && !n.readersUnknown && (!n.kernelTouched || n.drop == settings.DropCaches):
		return storage(reasonUntouched, "this node never wrote or read these bytes before")
	case n.drop == settings.DropCaches && cacheKind == "":
		return storage(reasonDropCaches, c.ownDir(fmt.Sprintf("page cache dropped, and %s caches only there", fsName(n.fsType))))
	case n.drop == settings.DropFadvise && fadviseEmpties(n.fsType, cacheKind) && n.residentPages > 0:
		return storage(reasonFadvise, c.ownDir(fmt.Sprintf("the job's files evicted with posix_fadvise, %.1f%% of the %d pages it read resident as the phase began, and %s caches only there",
			100*n.resident, n.residentPages, fsName(n.fsType))))
	}
	return maybeWhy(c, n, cacheKind, maybe)
}

// maybeWhy names why a node's read may come from a cache, the most
// specific reason first.
func maybeWhy(c readCase, n nodeRead, cacheKind string, maybe func(string, string) result.NodeVerdict) result.NodeVerdict {
	dropWord := "its page cache was not dropped (" + n.drop.String() + ")"
	switch {
	case cacheKind != "":
		dropWord = cacheKind + ", which drop_caches does not empty"
	case n.drop == settings.DropFadvise && !fadviseEmpties(n.fsType, cacheKind):
		dropWord = "posix_fadvise evicts the page cache's copy alone, not what " + fsName(n.fsType) + "'s FUSE daemon may keep (drop_caches needs root)"
	}
	switch {
	case !n.touched && n.readersUnknown:
		return maybe(reasonReaders, "the kept job's manifest does not say which nodes read its files, and "+dropWord)
	case !n.touched:
		return maybe(reasonSharedKern, "another node on this node's kernel touched these bytes, and "+dropWord)
	case c.nodeLocal:
		return maybe(reasonNodeLocal, "--dir is this node's own, so only this node can read what it wrote, and "+dropWord)
	case c.rotating && c.exhausted:
		return maybe(reasonNoUntouched, "every node had already touched these bytes (no untouched node left for this read), and "+dropWord)
	case cacheKind != "":
		return maybe(reasonClientCache, "this node touched these bytes before, and "+dropWord)
	case n.drop != settings.DropCaches:
		return maybe(reasonNoDrop, "this node touched these bytes before, and "+dropWord)
	}
	return maybe(reasonTouched, "this node touched these bytes before")
}

func fsName(fsType string) string {
	if fsType == "" {
		return "the filesystem"
	}
	return fsType
}

// phaseVerdict is the phase's verdict from its nodes': storage only when
// every node's is, and one sentence naming the first node that is not.
func phaseVerdict(nodes []result.NodeVerdict) (verdict, reason string) {
	var maybe []result.NodeVerdict
	codes := map[string]bool{}
	var order []string
	for _, n := range nodes {
		if n.Verdict != result.VerdictStorage {
			maybe = append(maybe, n)
		} else if !codes[n.Reason] {
			codes[n.Reason] = true
			order = append(order, n.Reason)
		}
	}
	if len(maybe) == 0 {
		return result.VerdictStorage, "storage on every node (" + strings.Join(order, ", ") + ")"
	}
	first := maybe[0]
	return result.VerdictMaybeCache, fmt.Sprintf("may come from a cache on %d of %d node(s): %s: %s (%s)",
		len(maybe), len(nodes), first.Host, first.Detail, first.Reason)
}

// coldEverywhere says whether no node's client cache can serve the read:
// O_DIRECT, untouched bytes, or a page cache that is the only one and was
// dropped, or emptied of the job's files, on every node. The sizing guard
// then counts only the servers' cache.
func coldEverywhere(nodes []result.NodeVerdict) bool {
	for _, n := range nodes {
		switch n.Reason {
		case reasonDirect, reasonUntouched, reasonDropCaches, reasonFadvise:
		default:
			return false
		}
	}
	return len(nodes) > 0
}
