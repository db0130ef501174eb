package iozone

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func words(s string) []string { return strings.Fields(s) }

// The seed command lines, verbatim from the issue.
const (
	seedWrite  = "-i0 -c -e -w -r 16M -s 64G -t 8 -+n -+m ./threadlist"
	seedRead   = "-i1 -c -e -w -r 16M -s 64G -t 8 -+n -+m ./threadlist"
	seedRandom = "-i2 -c -O -w -r 4K -s 64G -t 8 -+n -+m ./threadlist"
)

func TestParseSeeds(t *testing.T) {
	cases := []struct {
		line   string
		phases []string
		rec    int64
		fsync  bool
		ops    bool
		reuse  bool
	}{
		{seedWrite, []string{"write"}, 16 << 20, true, false, false},
		{seedRead, []string{"read"}, 16 << 20, true, false, true},
		{seedRandom, []string{"randread", "randwrite"}, 4 << 10, false, true, true},
	}
	for _, c := range cases {
		cmd, err := Parse(words(c.line))
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if got := cmd.Phases(); !reflect.DeepEqual(got, c.phases) {
			t.Errorf("%s: phases %v, want %v", c.line, got, c.phases)
		}
		if cmd.FileSize != 64<<30 || cmd.RecordSize != c.rec || !cmd.Close || !cmd.Keep || !cmd.NoRetest {
			t.Errorf("%s: parsed %+v", c.line, cmd)
		}
		if cmd.Fsync != c.fsync || cmd.OpsPerSec != c.ops || cmd.ClientFile != "./threadlist" {
			t.Errorf("%s: parsed %+v", c.line, cmd)
		}
		if got := cmd.ThreadCounts(); !reflect.DeepEqual(got, []int{8}) {
			t.Errorf("%s: thread counts %v", c.line, got)
		}
		if cmd.NeedsExistingFiles() != c.reuse {
			t.Errorf("%s: NeedsExistingFiles %v", c.line, cmd.NeedsExistingFiles())
		}
	}
}

func TestParseValid(t *testing.T) {
	cases := []struct {
		line string
		want func(Command) bool
	}{
		{"-i 0 -t 2", func(c Command) bool {
			return reflect.DeepEqual(c.Phases(), []string{"write", "rewrite"}) && c.FileSize == 512<<10 && c.RecordSize == 4<<10
		}},
		{"-i0 -i1 -i2 -t1", func(c Command) bool {
			return reflect.DeepEqual(c.Phases(), []string{"write", "rewrite", "read", "reread", "randread", "randwrite"})
		}},
		{"-i2 -i0 -t1", func(c Command) bool { // IOzone's order, not the -i order
			return reflect.DeepEqual(c.Phases(), []string{"write", "rewrite", "randread", "randwrite"})
		}},
		{"-i1 -t1 -+n", func(c Command) bool { return reflect.DeepEqual(c.Phases(), []string{"read"}) }},
		{"-s 4g -t1 -i0", func(c Command) bool { return c.FileSize == 4<<30 }},
		{"-s 4096m -t1 -i0", func(c Command) bool { return c.FileSize == 4<<30 }},
		{"-s 4194304 -t1 -i0", func(c Command) bool { return c.FileSize == 4<<30 }},
		{"-s4194304k -t1 -i0", func(c Command) bool { return c.FileSize == 4<<30 }},
		{"-s 0 -t1 -i0", func(c Command) bool { return c.FileSize == 512<<10 }}, // IOzone: <= 0 is 512 kB
		{"-r 16m -t1 -i0", func(c Command) bool { return c.RecordSize == 16<<20 }},
		{"-r 4k -t1 -i0", func(c Command) bool { return c.RecordSize == 4<<10 }},
		{"-r 16384 -t1 -i0", func(c Command) bool { return c.RecordSize == 16<<20 }},
		{"-r 0 -t1 -i0", func(c Command) bool { return c.RecordSize == 4<<10 }},
		{"-ce -i0 -t4", func(c Command) bool { return c.Close && c.Fsync }},
		{"-ceIOxCRTw -i0 -t4", func(c Command) bool {
			return c.Close && c.Fsync && c.Direct && c.OpsPerSec && c.NoStonewall && c.PerChild && c.Excel && c.PosixThreads && c.Keep
		}},
		{"-ci0 -t4", func(c Command) bool { return c.Close && c.selects(0) }}, // a value letter ends the cluster
		{"-i0 -o -e -t2", func(c Command) bool { // IOzone's splash line, in the order of the options
			args, err := c.RunArgs(2)
			return c.OSync && c.Fsync && err == nil && slices.Contains(args, "--o-sync") &&
				reflect.DeepEqual(c.Settings, []string{"SYNC Mode. ", "Include fsync in write timing"})
		}},
		{"-i0 -+r -t2", func(c Command) bool {
			return c.OSync && reflect.DeepEqual(c.Settings, []string{"Read & Write sync mode active."})
		}},
		{"-i0 -+D -e -t2", func(c Command) bool {
			args, err := c.RunArgs(2)
			return c.ODSync && !c.OSync && err == nil && slices.Contains(args, "--o-dsync") && !slices.Contains(args, "--o-sync") &&
				reflect.DeepEqual(c.Settings, []string{">>> O_DSYNC mode enabled. <<<", "Include fsync in write timing"})
		}},
		{"-i0 -o -+D -t2", func(c Command) bool { // both: IOzone ORs them, which is O_SYNC
			args, err := c.RunArgs(2)
			return err == nil && slices.Contains(args, "--o-sync") && !slices.Contains(args, "--o-dsync")
		}},
		{"-t8 -i0", func(c Command) bool { return reflect.DeepEqual(c.ThreadCounts(), []int{8}) }},
		{"-t 0 -i0", func(c Command) bool { return reflect.DeepEqual(c.ThreadCounts(), []int{8}) }}, // IOzone: 0 -> 8
		{"-t 1 -t 2 -t 4 -i0", func(c Command) bool {
			return reflect.DeepEqual(c.ThreadCounts(), []int{1, 2, 4}) && c.MaxThreads() == 4
		}},
		{"-l 2 -u 5 -i0", func(c Command) bool { return reflect.DeepEqual(c.ThreadCounts(), []int{2, 3, 4, 5}) }},
		{"-u 3 -i0", func(c Command) bool { return reflect.DeepEqual(c.ThreadCounts(), []int{1, 2, 3}) }},
		{"-l 3 -i0", func(c Command) bool { return reflect.DeepEqual(c.ThreadCounts(), []int{3}) }},
		{"-l 1 -u 4 -t 2 -i0", func(c Command) bool { return reflect.DeepEqual(c.ThreadCounts(), []int{2}) }}, // -t wins
		{"-t 3 -F a b c -i0", func(c Command) bool { return reflect.DeepEqual(c.Files, []string{"a", "b", "c"}) }},
		{"-t 2 -F a -b -i0", func(c Command) bool { return reflect.DeepEqual(c.Files, []string{"a", "-b"}) }}, // names are taken as words
		{"-i0 -t1 -+m hosts -+n", func(c Command) bool { return c.ClientFile == "hosts" && c.NoRetest }},
		{"-i0 -t1 -S 2048 -L64k", func(c Command) bool { return c.CacheKB == 2048 && c.CacheLine == 64 }}, // C's atoi: digits only
		{"-i0 -t1 -S x -L -8", func(c Command) bool { return c.CacheKB == 0 && c.CacheLine == -8 }},
		{"-i0 -t1 -b out.xls", func(c Command) bool { // -b turns -R on, without -R's setting line
			return c.Excel && c.Workbook == "out.xls" && len(c.Settings) == 0
		}},
		{"-i0 -t1 -Rbout.xls", func(c Command) bool {
			return c.Excel && c.Workbook == "out.xls" && reflect.DeepEqual(c.Settings, []string{"Excel chart generation enabled"})
		}},
		{"-i0 -t1 -+h head0 -+m hosts -+n", func(c Command) bool { // IOzone's splash line where -+h came
			return c.ControlHost == "head0" && reflect.DeepEqual(c.Settings,
				[]string{"Hostname = head0", "Network distribution mode enabled.", "No retest option selected"})
		}},
		{"-i0 -t1 -c+n", func(c Command) bool { return c.Close && c.NoRetest }},
		{"-i0 -t1 -+n -+u -R", func(c Command) bool { // -+u's two lines where it came, among the others
			return c.CPUUtil && reflect.DeepEqual(c.Settings, []string{"No retest option selected",
				"CPU utilization Resolution = 0.000 seconds.", "CPU utilization Excel chart enabled", "Excel chart generation enabled"})
		}},
		{"-i0 -t1 -R -h -q", func(c Command) bool { return c.Help }}, // -h stops parsing, as IOzone exits there
		{"-i0 -t1 --", func(c Command) bool { return true }},
	}
	for _, c := range cases {
		cmd, err := Parse(words(c.line))
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if !c.want(cmd) {
			t.Errorf("%q: unexpected %+v (phases %v, counts %v)", c.line, cmd, cmd.Phases(), cmd.ThreadCounts())
		}
	}
}

func TestParseInvalid(t *testing.T) {
	cases := []struct{ line, want string }{
		{"-i0 -t8 -q 16m", "iozone option -q: not supported (ioswarm times every record; see --block)"},
		{"-i0 -t8 -a", "iozone option -a: not supported (auto mode"},
		{"-i0", "iozone: needs -t N (or -l/-u)"},
		{"-t 4", "iozone: give the tests with -i"},
		{"-i 3 -t 4", "iozone option -i 3: test 3 (read-backwards) not supported"},
		{"-i x -t 4", `iozone option -i: "x" is not a whole number`},
		{"-i0 -t 1025", "maximum streams for throughput is MAXSTREAMS"},
		{"-i0 -t four", `iozone option -t: "four" is not a whole number`},
		{"-i0 -t 1 -s 1t", "IOzone has no t suffix (it would read this as 1 kB)"},
		{"-i0 -t 1 -s 1.5g", `"1.5g" is not a size`},
		{"-i0 -t 1 -s 1g -s 2g", "iozone option -s: Can not mix throughput mode and auto-mode flags."},
		{"-i0 -t 1 -r 4k -r 8k", "iozone option -r: Can not mix throughput mode and auto-mode flags."},
		{"-i0 -t 1 -r 32m", "iozone option -r: Error: maximum record size 32768 kB is greater than maximum buffer size 16384 kB"},
		{"-i0 -F a b -t 2", "iozone option -F: invalid options: must specify -t N before -F"},
		{"-i0 -t 3 -F a b", "iozone option -F: invalid options: not enough filenames for 3 streams"},
		{"-i0 -t 1 -b", "iozone option -b: needs a value"},
		{"-i0 -t 1 -+m", "iozone option -+m: -+m takes an operand. ( filename )"},
		{"-i0 -t 1 -+h", "iozone option -+h: -+h takes an operand !!"},
		{"-i0 -t 1 -+mhosts", "iozone option -+mhosts: IOzone reads only the letter after -+"},
		{"-i0 -t 1 -+uR", "iozone option -+uR: IOzone reads only the letter after -+"},
		{"-i0 -t 1 -s", "iozone option -s: needs a value"},
		{"-i0 -t 1 /tmp", `iozone option "/tmp": not an option (IOzone would ignore it silently)`},
		{"-i0 -t 1 -%", "iozone option -%: not an IOzone option"},
		{"-i0 -l 5 -u 2", "iozone option -l: lower limit 5 is above the upper limit -u 2"},
		{"-i0 -t 1 -p", "iozone option -p: not supported (IOzone's -p purges the processor cache"},
	}
	for _, c := range cases {
		_, err := Parse(words(c.line))
		if err == nil {
			t.Errorf("%q: no error, want %q", c.line, c.want)
			continue
		}
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%q: error %T, want *OptionError", c.line, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %s\n want %s", c.line, err, c.want)
		}
	}
}

func TestCheckClients(t *testing.T) {
	if err := CheckClients(8, 8); err != nil {
		t.Error(err)
	}
	err := CheckClients(4, 8)
	if err == nil || !strings.Contains(err.Error(), "You can not specify more threads/processes than you have in the client file list") {
		t.Errorf("CheckClients(4, 8) = %v", err)
	}
}

func TestEquivalent(t *testing.T) {
	cmd, err := Parse(words(seedWrite))
	if err != nil {
		t.Fatal(err)
	}
	want := "ioswarm run --threads 8 --file-size 64GiB --block 16MiB --rand-block 16MiB --phases write --keep --hosts ./threadlist"
	if got := cmd.Equivalent(8); got != want {
		t.Errorf("Equivalent:\n got  %s\n want %s", got, want)
	}
	// -+h names this machine for the -+m clients: where ranks dial the
	// coordinator. Without -+m IOzone ignores it, and so does the job.
	for line, want := range map[string]string{
		seedWrite + " -+h 10.0.0.1": " --hosts ./threadlist --listen 10.0.0.1:0",
		seedWrite + " -+h fe80::1":  " --hosts ./threadlist --listen [fe80::1]:0",
		"-i0 -t 1 -+h head0":        " --phases write,rewrite --no-fsync",
		// IOzone's random tests lseek and then read or write.
		"-i0 -i2 -t 1 -+n": " --phases write,randread,randwrite --no-fsync --rand-call lseek",
	} {
		cmd, err := Parse(words(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if got := cmd.Equivalent(1); !strings.HasSuffix(got, want) {
			t.Errorf("%s: Equivalent = %s, want it to end in %q", line, got, want)
		}
	}
}

// ioswarm's whole-records rule speaks IOzone: -s and -r in kB, the
// sizes to use instead as -s values.
func TestCheckRecords(t *testing.T) {
	for line, want := range map[string]string{
		"-i0 -t 2 -s 100k -r 64k": "iozone option -s: 100 kB is not a whole number of -r 64 kB records (IOzone would leave out the last 36 kB) (use -s 64k or -s 128k)",
		"-i0 -t 1 -r 16m":         "use -s 16384k)",
		"-i0 -t 2 -s 1m -r 64k":   "",
	} {
		c, err := Parse(words(line))
		if err != nil {
			t.Fatal(err)
		}
		err = c.CheckRecords()
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", line, err, want)
		}
	}
}
