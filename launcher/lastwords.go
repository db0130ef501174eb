package launcher

import "ioswarm/internal/usage"

// rankKey names one rank's output.
type rankKey struct {
	host string
	rank int
}

// maxLastWords caps the line kept per rank: it goes into an error.
const maxLastWords = 512

// keepLast remembers line as the rank's last; lw.mu is held.
func (lw *LineWriter) keepLast(host string, rank int, line string) {
	if lw.last == nil {
		lw.last = make(map[rankKey]string)
	}
	if len(line) > maxLastWords {
		line = line[:maxLastWords] + "..."
	}
	lw.last[rankKey{host, rank}] = usage.OneLine(line)
}

// LastLine is the last line the rank of host wrote to its standard
// error, "" if none. A rank that ends on an error says why there, and
// only there when its connection is what failed (a frame that fails its
// MAC, a refused join): the coordinator puts the line into the job's
// error instead of "connection lost: EOF" alone.
func (lw *LineWriter) LastLine(host string, rank int) string {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.last[rankKey{host, rank}]
}
