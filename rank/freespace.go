package rank

import (
	"fmt"

	"ioswarm/units"
)

// freeSpaceWarning says that dir has less room than this node's threads
// will write, in binary units a person compares at a glance (73394683904
// bytes reads as 68.4 GiB).
func freeSpaceWarning(dir string, free, need int64) string {
	return fmt.Sprintf("dir %s has %s free, this node's threads need %s",
		dir, units.FormatBytes(free), units.FormatBytes(need))
}
