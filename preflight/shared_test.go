package preflight

import (
	"os"
	"strings"
	"testing"
)

// The marker's steps on one directory: made, seen with its token, not
// seen with another or in another directory, removed without a trace.
func TestMarkerSteps(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	token := "0123456789abcdef0123456789abcdef"
	look := func(d, tok string) string {
		t.Helper()
		var b strings.Builder
		if err := Marker(MarkerLook, d, tok, &b); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(b.String())
	}
	if err := Marker(MarkerMake, dir, token, nil); err != nil {
		t.Fatal(err)
	}
	if got := look(dir, token); got != "seen" {
		t.Errorf("the maker's own directory: %q", got)
	}
	if got := look(other, token); got != "unseen" {
		t.Errorf("another directory: %q", got)
	}
	if got := look(dir, "0123456789abffff0123456789abcdef"); got != "unseen" {
		t.Errorf("another token: %q", got)
	}
	if err := Marker(MarkerRemove, dir, token, nil); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
	if err := Marker(MarkerLook, dir, "../../etc", nil); err == nil {
		t.Error("a token that is no job id was taken")
	}
}
