package main

import (
	"regexp"
	"strings"
)

// iozoneOption is an IOzone option as a run or sweep flag error sees it:
// the letter (or -+ letter) and anything glued to it ("i0", "t8", "+m").
var iozoneOption = regexp.MustCompile(`^(\+[a-zA-Z]|[a-zA-Z])([0-9]+[kKmMgG]?)?$`)

// iozoneFlags names, for the IOzone options people type into run and
// sweep out of habit, the ioswarm flag that does the same.
var iozoneFlags = map[string]string{
	"s":  "--file-size (per thread, as IOzone's -s) or --total",
	"t":  "--threads (ioswarm sweep --threads 1,2,4 for several counts)",
	"r":  "--block (and --rand-block for the random phases)",
	"i":  "--phases (-i0 = write,rewrite; -i1 = read,reread; -i2 = randread,randwrite)",
	"l":  "ioswarm sweep --threads",
	"u":  "ioswarm sweep --threads",
	"w":  "--keep",
	"e":  "--fsync, on by default",
	"c":  "nothing: close is always inside the timing",
	"I":  "--direct",
	"o":  "--o-sync",
	"+D": "--o-dsync",
	"+m": "--hosts FILE (an IOzone client file is a host file)",
	"+n": "--phases without rewrite and reread",
	"+u": "measured in every run: each thread's CPU time (cpu_ns, over cpu_wall_ns) is in --output's thread records",
}

// iozoneHint says what an undefined flag that is an IOzone option means
// in ioswarm, or "" when name is not one.
func iozoneHint(name string) string {
	m := iozoneOption.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	flag, ok := iozoneFlags[m[1]]
	if !ok && !strings.ContainsRune("OxCRT", rune(m[1][0])) {
		return ""
	}
	run := "ioswarm iozone runs IOzone command lines as they are"
	if !ok {
		return "an IOzone option: " + run
	}
	return "IOzone's -" + m[1] + " is " + flag + "; or " + run
}
