package clientcache

import "ioswarm/units"

// Describe is the cache as a user reads it: kind and size ("ceph-fuse
// object cacher 64 MiB, outside the page cache"). The page cache's size
// is the node's memory, given as memory (0: unknown).
func (i Info) Describe(memory int64) string {
	s := string(i.Kind)
	if s == "" {
		s = "unknown"
	}
	switch {
	case i.Size > 0:
		s += " " + units.FormatBinary(i.Size)
	case i.Kind == PageCache && memory > 0:
		s += " (memory " + units.FormatBinary(memory) + ")"
	default:
		s += " (size unknown)"
	}
	if i.Outside {
		s += ", outside the page cache"
		if !i.Counters {
			s += ", counters unreadable"
		}
	}
	return s
}
