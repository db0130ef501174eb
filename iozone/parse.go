package iozone

import (
	"fmt"
	"strings"

	"ioswarm/internal/usage"
	"ioswarm/units"
)

// IOzone's limits (iozone.c: MAXSTREAMS, MAXBUFFERSIZE and its defaults
// KILOBYTES and the 4 kB record throughput_test falls back to).
const (
	MaxStreams        = 1024
	MaxRecordSize     = 16 << 20
	DefaultFileSize   = 512 << 10
	DefaultRecordSize = 4 << 10
	defaultThreads    = 8 // what IOzone makes of -t 0
)

// Command is everything an IOzone command line said. Sizes are bytes.
type Command struct {
	Args []string // the arguments as given (without the program name)

	Tests         []int  // -i values in the order given
	FileSize      int64  // -s, per file; DefaultFileSize when not given
	FileSizeSet   bool   // -s was given
	RecordSize    int64  // -r; DefaultRecordSize when not given
	RecordSizeSet bool   // -r was given
	Threads       []int  // -t values in the order given (IOzone runs each)
	MinProcs      int    // -l (0: not given)
	MaxProcs      int    // -u (0: not given)
	Close         bool   // -c: close inside the timing
	Fsync         bool   // -e: fsync inside the timing
	Keep          bool   // -w: do not unlink the files
	NoRetest      bool   // -+n: no rewrite, no re-read
	ClientFile    string // -+m FILE
	ControlHost   string // -+h HOST: the name -+m clients reach this machine by
	Direct        bool   // -I: O_DIRECT
	OSync         bool   // -o, -+r: O_SYNC
	ODSync        bool   // -+D: O_DSYNC
	OpsPerSec     bool   // -O: results in operations per second
	NoStonewall   bool   // -x: stonewalling off
	PerChild      bool   // -C: one line per child
	Excel         bool   // -R: the Excel-style table on stdout
	Workbook      string // -b FILE: the same table as an Excel worksheet (WriteWorkbook); sets Excel
	CPUUtil       bool   // -+u: CPU utilisation lines, and a CPU table with -R
	PosixThreads  bool   // -T: POSIX threads instead of processes
	// CacheKB and CacheLine are -S and -L, the processor cache's size and
	// line as IOzone is told them (0: its defaults). IOzone sizes its
	// processor-cache purge (-p) and strides with them, neither of which
	// ioswarm runs; the header prints them, as IOzone's does.
	CacheKB, CacheLine int
	// Machine is -M's "uname -a", which the header prints where -M came
	// among the options; the command fills it in before the header
	// (parsing runs nothing).
	Machine        string
	Files          []string
	Help           bool // -h: print help and do nothing else
	throughputMode bool // -t, -l or -u seen

	// Settings are the lines IOzone prints for the options at the top of
	// its report ("\tSetting no_unlink"), in the order the options came.
	Settings []string
	// HeaderCount is IOzone's num_child when it prints "Throughput test
	// with N": the last -t or -l given (1 with -u alone).
	HeaderCount int
}

// OptionError is a command line ioswarm cannot run: the option (empty when
// the problem is the line as a whole), what is wrong and, when there is
// one, the ioswarm flag that comes closest.
type OptionError struct {
	Option string
	Msg    string
	Hint   string
}

func (e *OptionError) Error() string {
	s := "iozone: " + e.Msg
	if e.Option != "" {
		s = "iozone option " + e.Option + ": " + e.Msg
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return usage.OneLine(s) // it echoes what was typed: one line whatever that held
}

// The option letters of IOzone's getopt string (main in iozone.c), split
// into those without and those with an argument.
const (
	flagLetters  = "ZQNIBDGCTOMREWovAxamwphcezK"
	valueLetters = "JjkVrtsfFdluUSLH+PibXYgnyq"
)

// takesValue reports whether IOzone's getopt gives letter c an argument.
func takesValue(c byte) bool { return strings.IndexByte(valueLetters, c) >= 0 }

// isFlag reports whether c is an IOzone option letter without an argument.
func isFlag(c byte) bool { return strings.IndexByte(flagLetters, c) >= 0 }

// Parse reads IOzone's command-line syntax (without the program name) the
// way IOzone's getopt loop does: single-letter options may be combined
// ("-ce", "-Rb"), an option's value may follow it in the same word ("-i0",
// "-t8") or in the next one ("-i 0"), "-+x" options take their operand
// from the next word, and "--" ends the options. Unlike IOzone, a word
// that is not an option is an error (IOzone silently ignores it), and so
// is every option ioswarm does not run; the error names the closest
// ioswarm flag. With -h, Parse stops there and returns a Command with Help
// set, as IOzone prints its help and exits.
func Parse(args []string) (Command, error) {
	c := Command{Args: append([]string(nil), args...), FileSize: DefaultFileSize, RecordSize: DefaultRecordSize}
	p := parser{args: args, cmd: &c}
	if err := p.run(); err != nil {
		return Command{}, err
	}
	if c.Help {
		return c, nil
	}
	if c.HeaderCount == 0 {
		c.HeaderCount = 1 // -u alone: IOzone starts at 1
	}
	if p.sCount > 1 || p.rCount > 1 {
		opt := "-s"
		if p.rCount > 1 {
			opt = "-r"
		}
		return Command{}, &OptionError{Option: opt, Msg: "Can not mix throughput mode and auto-mode flags.",
			Hint: "IOzone turns several " + opt + " into auto mode; give one, or use ioswarm sweep for a series"}
	}
	if err := c.validate(); err != nil {
		return Command{}, err
	}
	return c, nil
}

// parser walks the words like getopt, keeping its position.
type parser struct {
	args   []string
	i      int // next word
	cmd    *Command
	sCount int
	rCount int
}

func (p *parser) run() error {
	for p.i < len(p.args) {
		word := p.args[p.i]
		p.i++
		if word == "--" {
			if p.i < len(p.args) {
				return stray(p.args[p.i])
			}
			return nil
		}
		if len(word) < 2 || word[0] != '-' {
			return stray(word)
		}
		if err := p.cluster(word); err != nil || p.cmd.Help {
			return err
		}
	}
	return nil
}

func stray(word string) error {
	return &OptionError{Option: fmt.Sprintf("%q", word), Msg: "not an option (IOzone would ignore it silently)",
		Hint: "name files with -F, directories in the -+m file, or use ioswarm run --dir"}
}

// cluster handles one word of one or more option letters.
func (p *parser) cluster(word string) error {
	for j := 1; j < len(word); j++ {
		c := word[j]
		switch {
		case isFlag(c):
			if err := p.flag(c); err != nil || p.cmd.Help {
				return err
			}
		case takesValue(c):
			val := word[j+1:]
			if val == "" {
				if p.i >= len(p.args) {
					return &OptionError{Option: "-" + string(c), Msg: "needs a value"}
				}
				val = p.args[p.i]
				p.i++
			}
			return p.value(c, val, word[j+1:] != "")
		default:
			return &OptionError{Option: "-" + string(c), Msg: "not an IOzone option", Hint: "see ioswarm iozone -h"}
		}
	}
	return nil
}

// flag applies an option without an argument.
func (p *parser) flag(c byte) error {
	cmd := p.cmd
	switch c {
	case 'c':
		cmd.Close = true
		cmd.Settings = append(cmd.Settings, "Include close in write timing")
	case 'e':
		cmd.Fsync = true
		cmd.Settings = append(cmd.Settings, "Include fsync in write timing")
	case 'w':
		cmd.Keep = true
		cmd.Settings = append(cmd.Settings, "Setting no_unlink")
	case 'I':
		cmd.Direct = true
		cmd.Settings = append(cmd.Settings, "O_DIRECT feature enabled")
	case 'o':
		cmd.OSync = true
		cmd.Settings = append(cmd.Settings, "SYNC Mode. ") // IOzone's words, its space too
	case 'O':
		cmd.OpsPerSec = true
		cmd.Settings = append(cmd.Settings, "OPS Mode. Output is in operations per second.")
	case 'x':
		cmd.NoStonewall = true
		cmd.Settings = append(cmd.Settings, "Stonewall disabled")
	case 'C':
		cmd.PerChild = true
	case 'R':
		cmd.Excel = true
		cmd.Settings = append(cmd.Settings, "Excel chart generation enabled")
	case 'T':
		cmd.PosixThreads = true
	case 'M':
		cmd.Settings = append(cmd.Settings, MachineSetting)
	case 'h':
		cmd.Help = true
	default:
		return unsupported("-" + string(c))
	}
	return nil
}

// validate applies IOzone's checks on the line as a whole, and ioswarm's.
func (c *Command) validate() error {
	if !c.throughputMode {
		return &OptionError{Msg: "needs -t N (or -l/-u): ioswarm runs IOzone's throughput mode only",
			Hint: "for one stream use -t 1"}
	}
	if c.MinProcs > 0 && c.MaxProcs > 0 && c.MinProcs > c.MaxProcs && len(c.Threads) == 0 {
		return &OptionError{Option: "-l", Msg: fmt.Sprintf("lower limit %d is above the upper limit -u %d", c.MinProcs, c.MaxProcs)}
	}
	if len(c.Tests) == 0 {
		return &OptionError{Msg: "give the tests with -i 0, -i 1 or -i 2: without -i IOzone runs all of its throughput tests, most of which ioswarm does not have"}
	}
	return nil
}

// CheckRecords is ioswarm's rule on IOzone's sizes, said in IOzone's
// terms: a file is a whole number of records. IOzone writes the whole
// records that fit and leaves out the rest (none at all when -r is above
// -s), so its figures would describe a smaller file than -s says.
func (c Command) CheckRecords() error {
	if c.FileSize%c.RecordSize != 0 {
		below, above := units.NearestMultiple(c.FileSize, c.RecordSize)
		alt := fmt.Sprintf("-s %dk", above>>10)
		if below > 0 {
			alt = fmt.Sprintf("-s %dk or %s", below>>10, alt)
		}
		return &OptionError{Option: "-s", Msg: fmt.Sprintf("%d kB is not a whole number of -r %d kB records (IOzone would leave out the last %d kB)",
			c.FileSize>>10, c.RecordSize>>10, (c.FileSize%c.RecordSize)>>10), Hint: "use " + alt}
	}
	return nil
}

// maxStreams is IOzone's maxt: the largest -t or -u so far (-l alone: -l).
func (c *Command) maxStreams() int {
	n := c.MaxProcs
	for _, t := range c.Threads {
		n = max(n, t)
	}
	if n == 0 {
		n = c.MinProcs
	}
	return n
}
