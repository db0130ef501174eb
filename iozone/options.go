package iozone

import (
	"fmt"
	"strings"
)

// value applies an option with its argument; attached says the argument
// was in the same word as the letter.
func (p *parser) value(c byte, val string, attached bool) error {
	opt := "-" + string(c)
	switch c {
	case 'i':
		return p.test(opt, val)
	case 's':
		return p.fileSize(opt, val)
	case 'r':
		return p.recordSize(opt, val)
	case 't':
		return p.threads(opt, val)
	case 'l':
		return p.minProcs(opt, val)
	case 'u':
		return p.maxProcs(opt, val)
	case 'F':
		return p.files(val)
	case '+':
		return p.plus(val, attached)
	case 'S':
		p.cmd.CacheKB = atoi(val)
		return nil
	case 'L':
		p.cmd.CacheLine = atoi(val)
		return nil
	case 'b':
		// IOzone's -b also turns -R on (its Rflag), without -R's line
		// among the settings.
		p.cmd.Excel, p.cmd.Workbook = true, val
		return nil
	}
	return unsupported(opt)
}

// test takes -i: one test number, of those ioswarm runs.
func (p *parser) test(opt, val string) error {
	n, err := count(opt, val)
	if err != nil {
		return err
	}
	if n < 0 {
		n = 0 // IOzone's rule for a negative test number
	}
	if n > 2 {
		return &OptionError{Option: opt + " " + val, Msg: "test " + val + " (" + testName(n) + ") not supported",
			Hint: "ioswarm runs -i 0 (write, rewrite), -i 1 (read, re-read) and -i 2 (random read, random write)"}
	}
	p.cmd.Tests = append(p.cmd.Tests, n)
	return nil
}

// fileSize takes -s, in kB unless suffixed.
func (p *parser) fileSize(opt, val string) error {
	kb, err := kilobytes(opt, val)
	if err != nil {
		return err
	}
	if kb <= 0 {
		kb = DefaultFileSize >> 10 // IOzone: a size of 0 or less becomes 512 kB
	}
	p.sCount++
	p.cmd.FileSize, p.cmd.FileSizeSet = kb<<10, true
	p.cmd.Settings = append(p.cmd.Settings, fmt.Sprintf("File size set to %d kB", kb))
	return nil
}

// recordSize takes -r, in kB unless suffixed, up to IOzone's buffer.
func (p *parser) recordSize(opt, val string) error {
	kb, err := kilobytes(opt, val)
	if err != nil {
		return err
	}
	b := kb << 10
	if kb <= 0 {
		b = DefaultRecordSize // IOzone's rule for -r 0
	}
	if b > MaxRecordSize {
		return &OptionError{Option: opt, Msg: fmt.Sprintf("Error: maximum record size %d kB is greater than maximum buffer size %d kB", b>>10, MaxRecordSize>>10)}
	}
	p.rCount++
	p.cmd.RecordSize, p.cmd.RecordSizeSet = b, true
	p.cmd.Settings = append(p.cmd.Settings, fmt.Sprintf("Record Size %d kB", b>>10))
	return nil
}

// threads takes -t: throughput mode with that many streams.
func (p *parser) threads(opt, val string) error {
	n, err := streams(opt, val, defaultThreads)
	if err != nil {
		return err
	}
	p.cmd.Threads = append(p.cmd.Threads, n)
	p.cmd.throughputMode, p.cmd.HeaderCount = true, n
	return nil
}

// minProcs takes -l, the smallest stream count of a -l/-u range.
func (p *parser) minProcs(opt, val string) error {
	n, err := streams(opt, val, 1)
	if err != nil {
		return err
	}
	p.cmd.MinProcs, p.cmd.throughputMode, p.cmd.HeaderCount = n, true, n
	return nil
}

// maxProcs takes -u, the largest stream count of a -l/-u range.
func (p *parser) maxProcs(opt, val string) error {
	n, err := streams(opt, val, 1)
	if err != nil {
		return err
	}
	p.cmd.MaxProcs, p.cmd.throughputMode = n, true
	return nil
}

// files takes -F's names: as many as the largest thread count so far, the
// first of them already consumed as the option's value.
func (p *parser) files(first string) error {
	cmd := p.cmd
	if !cmd.throughputMode {
		return &OptionError{Option: "-F", Msg: "invalid options: must specify -t N before -F"}
	}
	n := cmd.maxStreams()
	names := []string{first}
	for len(names) < n {
		if p.i >= len(p.args) {
			return &OptionError{Option: "-F", Msg: fmt.Sprintf("invalid options: not enough filenames for %d streams", n)}
		}
		names = append(names, p.args[p.i])
		p.i++
	}
	cmd.Files = names
	return nil
}

// plus handles IOzone's "-+x" options: getopt hands over the rest of the
// word and IOzone reads only its first letter, taking any operand from
// the next word.
func (p *parser) plus(rest string, attached bool) error {
	if !attached || len(rest) != 1 {
		return &OptionError{Option: "-+" + rest, Msg: "IOzone reads only the letter after -+ and takes an operand from the next word",
			Hint: "write it as, e.g., -+n or -+m FILE"}
	}
	switch rest[0] {
	case 'n':
		p.cmd.NoRetest = true
		p.cmd.Settings = append(p.cmd.Settings, "No retest option selected")
	case 'r':
		// O_RSYNC|O_SYNC on every open; on Linux O_RSYNC is O_SYNC, so
		// it is -o's job under another line.
		p.cmd.OSync = true
		p.cmd.Settings = append(p.cmd.Settings, "Read & Write sync mode active.")
	case 'D':
		// O_DSYNC on every open. With -o too, IOzone opens with both,
		// which is O_SYNC (RunArgs).
		p.cmd.ODSync = true
		p.cmd.Settings = append(p.cmd.Settings, ">>> O_DSYNC mode enabled. <<<")
	case 'u':
		p.cmd.CPUUtil = true
		p.cmd.Settings = append(p.cmd.Settings, cpuResolutionSetting, "CPU utilization Excel chart enabled")
	case 'm':
		if p.i >= len(p.args) {
			return &OptionError{Option: "-+m", Msg: "-+m takes an operand. ( filename )"}
		}
		p.cmd.ClientFile = p.args[p.i]
		p.i++
		p.cmd.Settings = append(p.cmd.Settings, "Network distribution mode enabled.")
	case 'h':
		// The name or address IOzone's clients connect back to, for a
		// master with several networks; ioswarm's ranks dial the
		// coordinator there (RunArgs).
		if p.i >= len(p.args) {
			return &OptionError{Option: "-+h", Msg: "-+h takes an operand !!"}
		}
		p.cmd.ControlHost = p.args[p.i]
		p.i++
		p.cmd.Settings = append(p.cmd.Settings, "Hostname = "+p.cmd.ControlHost)
	default:
		return unsupported("-+" + rest)
	}
	return nil
}

// atoi is C's atoi, which IOzone reads -S and -L with: an optional sign
// and the digits that follow it, 0 where there are none, the rest of the
// word ignored.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<40; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}
