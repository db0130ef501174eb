package hostlist

import (
	"fmt"
	"strings"
)

// MaxHosts bounds how many hosts one list, inline value or file may expand to.
// A million ranks is far beyond any cluster a benchmark is run on, and the
// bound keeps a mistyped range from exhausting memory.
const MaxHosts = 1 << 20

// maxHostLen bounds one host name; DNS names stop at 253 characters.
const maxHostLen = 255

// SyntaxError reports a malformed host list and where the problem is.
type SyntaxError struct {
	List   string // the list as given
	Column int    // 1-based byte position of the problem; 0 when it concerns the whole list
	Msg    string // what is wrong
}

func (e *SyntaxError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("invalid host list %q: %s (at column %d)", e.List, e.Msg, e.Column)
	}
	return fmt.Sprintf("invalid host list %q: %s", e.List, e.Msg)
}

func syntaxErr(list string, offset int, format string, args ...any) error {
	return &SyntaxError{List: list, Column: offset + 1, Msg: fmt.Sprintf(format, args...)}
}

// span is an item of a list, as byte offsets into the list.
type span struct{ start, end int }

// splitTop cuts a list at the commas outside brackets (the commas inside a
// bracket separate ranges) and checks that brackets pair up without nesting.
// Items are trimmed of surrounding white space; an empty item is an error
// because "a,,b" is more often a deleted host than an intended one.
func splitTop(list string) ([]span, error) {
	if strings.TrimSpace(list) == "" {
		return nil, &SyntaxError{List: list, Msg: "empty"}
	}
	var items []span
	open, start := -1, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '[':
			if open >= 0 {
				return nil, syntaxErr(list, i, `"[" inside brackets`)
			}
			open = i
		case ']':
			if open < 0 {
				return nil, syntaxErr(list, i, `"]" without a matching "["`)
			}
			open = -1
		case ',':
			if open < 0 {
				items = append(items, span{start, i})
				start = i + 1
			}
		}
	}
	if open >= 0 {
		return nil, syntaxErr(list, open, `"[" is never closed`)
	}
	items = append(items, span{start, len(list)})
	for k, it := range items {
		items[k] = trimSpan(list, it)
		if items[k].start == items[k].end {
			return nil, syntaxErr(list, it.start, "empty item")
		}
	}
	return items, nil
}

func trimSpan(s string, sp span) span {
	for sp.start < sp.end && isSpace(s[sp.start]) {
		sp.start++
	}
	for sp.end > sp.start && isSpace(s[sp.end-1]) {
		sp.end--
	}
	return sp
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// isNameByte reports whether c may appear in a host name outside brackets.
// The set is what DNS names, IPv4 addresses and Slurm node names use; anything
// else (":", "@", "#", "/") is far more likely a port, user, comment or path
// in the wrong place than part of a name.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '-' || c == '_'
}

// badByteMsg describes a byte that may not appear in a name of the kind
// given ("host name", "user name"), with a hint for the usual mistakes.
func badByteMsg(c byte, what string) string {
	switch {
	case isSpace(c) && what == "host name":
		return `white space inside a host name (separate hosts with ",")`
	case c == ':' && what == "host name":
		return `":" in a host name (a port is written user@host:port in an inline list or a host file)`
	case c < 0x20 || c >= 0x7f:
		return fmt.Sprintf("byte 0x%02x in a %s", c, what)
	}
	return fmt.Sprintf("character %q in a %s", c, what)
}
