package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The atomic writer replaces a file whole, writes a link's target rather
// than the link, and writes a device in place: renaming a temporary file
// over /dev/null would replace the device itself.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	path := filepath.Join(dir, "s.json")
	for _, s := range []string{"first, and longer", "second"} {
		if err := writeFileAtomic("output", path, text(s)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != s {
			t.Errorf("file holds %q, want %q", got, s)
		}
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic("output", link, text("through the link")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "through the link" {
		t.Errorf("target holds %q", got)
	}
	if err := writeFileAtomic("output", os.DevNull, text("nothing")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v", os.DevNull, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries left in the directory, want the file and the link: %v", len(ents), ents)
	}
}
