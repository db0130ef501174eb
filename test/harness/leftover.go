package harness

import "time"

// Leftover is how long a test waits for processes to exit and files to
// go before it calls them left over. Processes and files a bug leaves
// behind stay for good, so a long wait costs a passing test nothing,
// while a short one (the 1-6 s these waits once were) failed on a busy
// machine (load 11-18 on 2 cores) that was only slow to reap them.
const Leftover = time.Minute

// LeftoverWait is within, or Leftover when that is longer: what a caller
// that names the prompt figure waits before reporting leftovers.
func LeftoverWait(within time.Duration) time.Duration { return max(within, Leftover) }
