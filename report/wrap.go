package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Width is the width, in columns, that text meant for a person keeps to:
// the terminal a table is first read on.
const Width = 80

// Wrap breaks text at spaces into lines of at most width columns, the
// prefix included: the first line starts with first, every later one
// with rest (an indent that shows it continues). A word longer than a
// line (a path, a URL) stands alone on its line rather than being cut.
// Runs of spaces between words collapse to one; the result has no
// trailing newline.
func Wrap(text string, width int, first, rest string) string {
	var b strings.Builder
	line, prefix := first, first
	for _, word := range strings.Fields(text) {
		switch {
		case line == prefix:
			line += word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			b.WriteString(line + "\n")
			prefix = rest
			line = rest + word
		}
	}
	b.WriteString(line)
	return b.String()
}

// WriteWrapped writes text wrapped to Width as Wrap does, with a newline
// after the last line. Every warning a printer shows goes through it, so
// that a new warning cannot widen the output.
func WriteWrapped(w io.Writer, text, first, rest string) {
	io.WriteString(w, Wrap(text, Width, first, rest)+"\n")
}
