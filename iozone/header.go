package iozone

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// Version is the IOzone release whose report stream ioswarm iozone
// reproduces line for line.
const Version = "3.489"

// IOzone's default processor cache size and line (-S, -L) and its fixed
// stride (-j, which ioswarm does not take): it prints them in every
// report, so scripts may expect the lines.
const (
	cacheSizeKB    = 1024
	cacheLineBytes = 32
	strideRecords  = 17
)

// MachineSetting stands in Command.Settings where -M came: the header
// prints IOzone's "Machine = " line there, from Command.Machine.
const MachineSetting = "\x00machine"

// splashSlot is the size of each line of IOzone's splash array, where it
// formats its option lines before printing them.
const splashSlot = 80

// settingLines are the option lines as IOzone prints them. It formats
// each into an 80-byte slot of one array and prints each slot up to its
// first NUL, so a text that does not fit runs on into the next slot,
// whose own line then overwrites the rest: with -M ("\n\tMachine = "
// and uname -a, 80 bytes or more on many machines) followed by another
// option, IOzone prints the machine line cut at 80 bytes with that
// option's line joined to it, and then the option's line again. Scripts
// that count IOzone's lines count that too.
func settingLines(c Command) string {
	texts := make([]string, len(c.Settings))
	size := len(texts) * splashSlot
	for i, s := range c.Settings {
		texts[i] = "\t" + s + "\n"
		if s == MachineSetting {
			texts[i] = "\n\tMachine = " + c.Machine + "\n"
		}
		size = max(size, i*splashSlot+len(texts[i])+1)
	}
	mem := make([]byte, size)
	for i, t := range texts {
		n := copy(mem[i*splashSlot:], t)
		mem[i*splashSlot+n] = 0
	}
	var out strings.Builder
	for i := range texts {
		line := mem[i*splashSlot:]
		if end := bytes.IndexByte(line, 0); end >= 0 {
			line = line[:end]
		}
		out.Write(line)
	}
	return out.String()
}

// contributors is the credit list in IOzone's banner, kept so the banner
// has IOzone's lines where scripts skip a fixed number of them.
var contributors = []string{
	"Contributors:William Norcott, Don Capps, Isom Crawford, Kirby Collins",
	"             Al Slater, Scott Rhine, Mike Wisner, Ken Goss",
	"             Steve Landherr, Brad Smith, Mark Kelly, Dr. Alain CYR,",
	"             Randy Dunlap, Mark Montague, Dan Million, Gavin Brebner,",
	"             Jean-Marc Zucconi, Jeff Blomberg, Benny Halevy, Dave Boone,",
	"             Erik Habbinga, Kris Strecker, Walter Wong, Joshua Root,",
	"             Fabrice Bacchella, Zhenghua Xue, Qin Li, Darren Sawyer,",
	"             Vangel Bojaxhi, Ben England, Vikentsi Lapa,",
	"             Alexey Skidanov, Sudhir Kumar.",
}

// Distributed reports whether IOzone would run this command in its
// network distribution (cluster) mode: with -+m. Its report then has
// "Test running:" and "Test cleanup:" lines and no "Parent sees".
func (c Command) Distributed() bool { return c.ClientFile != "" }

// port is IOzone's word for one child, or with plural for several.
func (c Command) port(plural bool) string {
	switch {
	case c.PosixThreads && plural:
		return "threads"
	case c.PosixThreads:
		return "thread"
	case plural:
		return "processes"
	}
	return "process"
}

// WriteHeader prints what IOzone prints before its first test: the
// banner, the option lines in the order the options came, the command
// line (commandLine: the words as the user gave them, program included),
// the unit, IOzone's fixed settings, -l/-u's range and "Throughput test
// with N", N being IOzone's num_child at that point (HeaderCount), not
// every count it will run.
func WriteHeader(w io.Writer, c Command, commandLine []string, began time.Time) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "\tIozone: Performance Test of File I/O\n")
	fmt.Fprintf(b, "\t        Version $Revision: %s $\n\t\tCompiled for 64 bit mode.\n", Version)
	fmt.Fprintf(b, "\t\tBuild: %s \n\n", buildName())
	for i, line := range contributors {
		fmt.Fprintf(b, "\t%s\n", line)
		if i == len(contributors)-1 {
			b.WriteString("\n")
		}
	}
	// ctime's text ends in a newline of its own, hence the empty line.
	fmt.Fprintf(b, "\tRun began: %s\n\n", began.Format("Mon Jan _2 15:04:05 2006"))
	b.WriteString(settingLines(c))
	fmt.Fprintf(b, "\tCommand line used: %s\n", strings.Join(commandLine, " "))
	if !c.OpsPerSec {
		b.WriteString("\tOutput is in kBytes/sec\n")
	}
	// ioswarm's clock counts nanoseconds; IOzone's format shows
	// microseconds, and a resolution of 0 would read as no timer at all.
	b.WriteString("\tTime Resolution = 0.000001 seconds.\n")
	cacheKB, line := c.CacheKB, c.CacheLine
	if cacheKB == 0 {
		cacheKB = cacheSizeKB // IOzone: -S 0 is its default
	}
	if line == 0 {
		line = cacheLineBytes
	}
	fmt.Fprintf(b, "\tProcessor cache size set to %d kBytes.\n", cacheKB)
	fmt.Fprintf(b, "\tProcessor cache line size set to %d bytes.\n", line)
	fmt.Fprintf(b, "\tFile stride size set to %d * record size.\n", strideRecords)
	if c.MinProcs > 0 || c.MaxProcs > 0 {
		lo, hi := c.procRange()
		fmt.Fprintf(b, "\tMin %s = %d \n\tMax %s = %d \n", c.port(false), lo, c.port(false), hi)
	}
	fmt.Fprintf(b, "\tThroughput test with %d %s\n", c.HeaderCount, c.port(c.HeaderCount > 1))
	return b.Flush()
}

// procRange is -l and -u as IOzone completes them: -u alone starts at 1,
// -l alone ends where it starts.
func (c Command) procRange() (lo, hi int) {
	lo, hi = c.MinProcs, c.MaxProcs
	if lo == 0 {
		lo = 1
	}
	if hi == 0 {
		hi = lo
	}
	return lo, hi
}

// buildName is IOzone's build target name for this machine's kind.
func buildName() string {
	if runtime.GOARCH == "amd64" {
		return "linux-AMD64"
	}
	return runtime.GOOS + "-" + runtime.GOARCH
}

// WriteComplete prints IOzone's last line, which harnesses wait for.
func WriteComplete(w io.Writer) error {
	_, err := io.WriteString(w, "\niozone test complete.\n")
	return err
}
