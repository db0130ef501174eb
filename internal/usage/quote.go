package usage

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Value is s as an error message may show it: quoted (as %q does) when
// it holds a control character, a line or paragraph separator or bytes
// that are not UTF-8, which a terminal would take for layout or escapes,
// so that a message naming any value stays one line; any other string is
// left as it is.
func Value(s string) string {
	if needsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

func needsQuote(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// safeString formats a string argument of Errorf: %s and %v as Value
// does, every other verb (%q, %x, widths) as for the plain string.
type safeString string

func (s safeString) Format(f fmt.State, verb rune) {
	v := string(s)
	if verb == 's' || verb == 'v' {
		v = Value(v)
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), v)
}

// safeArgs wraps every string among args in safeString.
func safeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			a = safeString(s)
		}
		out[i] = a
	}
	return out
}

// OneLine escapes, in place, what Value would quote s for: for a message
// built from several values, already worded, that must stay one line.
func OneLine(s string) string {
	if !needsQuote(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}
