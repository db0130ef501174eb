package nodefacts

import (
	"os"
	"path/filepath"
)

// reportingBit is virtio-balloon's free page reporting feature
// (VIRTIO_BALLOON_F_REPORTING): the guest tells its hypervisor which
// pages it has freed, and the hypervisor takes them back.
const reportingBit = 5

// freePageReporting says whether a virtio balloon on this node hands
// freed memory back to its hypervisor. Such a node pays the host for
// every page it takes again: its page cache fills as fast as the host
// faults memory in, and how much of it the guest had already reported
// depends on how long ago it was freed (by a cache drop, deleted files).
// On a 2-core test VM one buffered write ran 2.8-3.3 million kB/s
// started right after a cache drop and 0.53-1.14 million started 5 s
// after one (docs/benchmarks.md). sys is where sysfs is mounted;
// a balloon's features file holds one '0' or '1' per feature bit, bit 0
// first.
func freePageReporting(sys string) bool {
	files, _ := filepath.Glob(filepath.Join(sys, "bus/virtio/drivers/virtio_balloon/virtio*/features"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(b) > reportingBit && b[reportingBit] == '1' {
			return true
		}
	}
	return false
}
