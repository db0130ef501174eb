package iozone

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// -M's line as IOzone prints it: after an empty line, where -M came among
// the options; a machine line of 80 bytes or more runs into the next
// option's slot, as in IOzone's fixed-size splash array.
func TestMachineLine(t *testing.T) {
	short := "Linux n1 6.1.0 x86_64 GNU/Linux"
	long := "Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux" // IOzone's line 80 bytes
	cases := []struct {
		line, machine, want string
	}{
		{"-i0 -t1 -M -e", short, "\n\tMachine = " + short + "\n\tInclude fsync in write timing\n"},
		{"-i0 -t1 -e -M", long, "\tInclude fsync in write timing\n\n\tMachine = " + long + "\n"},
		// Real IOzone 3.489 on this project's machine, same uname:
		{"-i0 -t1 -M -e", long, "\n\tMachine = " + long + "\tInclude fsync in write timing\n\tInclude fsync in write timing\n"},
		{"-i0 -t1 -M -e -c", long + " and more", "\n\tMachine = " + long + "\tInclude fsync in write timing\n" +
			"\tInclude fsync in write timing\n\tInclude close in write timing\n"},
	}
	for _, c := range cases {
		cmd, err := Parse(words(c.line))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Machine = c.machine
		if got := settingLines(cmd); got != c.want {
			t.Errorf("%s, machine %q:\n got %q\nwant %q", c.line, c.machine, got, c.want)
		}
	}
	// A line longer than two slots runs on through both.
	cmd, err := Parse(words("-i0 -t1 -M"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Machine = strings.Repeat("m", 200)
	if got, want := settingLines(cmd), "\n\tMachine = "+cmd.Machine+"\n"; got != want {
		t.Errorf("last and long: %q, want %q", got, want)
	}
}

// -S and -L change only the header's two processor-cache lines; 0 is
// IOzone's default.
func TestCacheLines(t *testing.T) {
	for line, want := range map[string]string{
		"-i0 -t1":                "size set to 1024 kBytes.\n\tProcessor cache line size set to 32 bytes.",
		"-i0 -t1 -S 2048 -L 128": "size set to 2048 kBytes.\n\tProcessor cache line size set to 128 bytes.",
		"-i0 -t1 -S 0 -L 0":      "size set to 1024 kBytes.\n\tProcessor cache line size set to 32 bytes.",
	} {
		cmd, err := Parse(words(line))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteHeader(&b, cmd, []string{"iozone"}, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "\tProcessor cache "+want+"\n") {
			t.Errorf("%s: header\n%s\nwant %q", line, b.String(), want)
		}
	}
}
