package usage

import (
	"strings"
	"testing"
)

// Usage errors echo what the user typed; a control character in it is
// quoted, so the message stays one line, and plain values are untouched.
func TestErrorfQuotesControlCharacters(t *testing.T) {
	for _, c := range []struct{ format, value, want string }{
		{"--dir %s: no such file", "/x\ny", `--dir "/x\ny": no such file`},
		{"--dir %v: no such file", "/x\ry", `--dir "/x\ry": no such file`},
		{"--dir %s: no such file", "/plain dir", "--dir /plain dir: no such file"},
		{"option %s", "-\x1b[2J", `option "-\x1b[2J"`},
		{"bad %q", "a\nb", `bad "a\nb"`},
		{"bytes %s", "\xff", `bytes "\xff"`},
		{"sep %s", "a\u2028b", `sep "a\u2028b"`},
		{"width [%5s]", "ab", "width [   ab]"},
	} {
		got := Errorf(c.format, c.value).Error()
		if got != c.want {
			t.Errorf("Errorf(%q, %q) = %q, want %q", c.format, c.value, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("Errorf(%q, %q) = %q: more than one line", c.format, c.value, got)
		}
	}
}

func TestOneLineEscapesInPlace(t *testing.T) {
	for in, want := range map[string]string{
		"plain, \"quoted\" text": "plain, \"quoted\" text",
		"a\nb\tc":                `a\nb\tc`,
		"bad \xff byte":          `bad \xff byte`,
		"é\u2029":                `é\u2029`,
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
