package iozone

import (
	"strings"
	"testing"
)

// FuzzParse: whatever the command line, Parse returns a command or an
// error of one line (it ends up as the one-line error the user reads),
// and never panics. The words of a command line are the fuzz input split
// at NUL bytes, which no argument can hold.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"-i\x000\x00-t\x004\x00-s\x001g\x00-r\x0016m",
		"-i0\x00-i1\x00-t8\x00-+m\x00/etc/clients\x00-e\x00-c",
		"-\n", "-t\x00\n", "-s\x001\x1bm", "-i\x009", "-l\x002\x00-u\x001", "--\x00x", "-h",
		"-F\x00/a\nb", "-+m", "-\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		if _, err := Parse(args); err != nil && strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("Parse(%q): error %q is more than one line", args, err)
		}
	})
}
