package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		text, first, rest string
		width             int
		want              string
	}{
		{"short enough", "  ", "    ", 20, "  short enough"},
		{"one two three four five", "  ", "    ", 13, "  one two\n    three\n    four five"},
		// A word longer than the width stands alone, uncut.
		{"see /a/very/long/path/that/cannot/break here", "", "  ", 16, "see\n  /a/very/long/path/that/cannot/break\n  here"},
		{"  spaces   collapse ", "- ", "  ", 80, "- spaces collapse"},
		// Columns are runes: "×" and "±" are one column each.
		{"2 × (a ± b) = c", "", "", 9, "2 × (a ±\nb) = c"},
		{"", "  ", "    ", 80, "  "},
	} {
		if got := Wrap(c.text, c.width, c.first, c.rest); got != c.want {
			t.Errorf("Wrap(%q, %d)\n got %q\nwant %q", c.text, c.width, got, c.want)
		}
	}
}

// A warning as long as the cache check's keeps to 80 columns, every line
// after the first indented.
func TestWriteWrappedKeepsToWidth(t *testing.T) {
	warning := "read: total 1 GiB is under twice what the caches can hold (2 × (clients 15.6 GiB on 1 node(s) + " +
		"servers 0 B) = 31.3 GiB), and the read is neither rotated nor O_DIRECT, its caches not dropped (fadvise): " +
		"the figure may come from memory, not storage; raise --total (--total auto sizes it)"
	var b strings.Builder
	WriteWrapped(&b, warning, "  ", "    ")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("not wrapped:\n%s", b.String())
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line %d has %d columns: %q", i, n, l)
		}
		if i > 0 && !strings.HasPrefix(l, "    ") {
			t.Errorf("line %d not indented: %q", i, l)
		}
	}
	if got := strings.Join(strings.Fields(b.String()), " "); got != warning {
		t.Errorf("words changed:\n got %s\nwant %s", got, warning)
	}
}
