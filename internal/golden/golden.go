// Package golden compares a test's output with a committed file under the
// test's testdata directory, or rewrites that file when the tests run with
// -update (to be reviewed in the diff). It imports only the standard
// library, so the tests of any package can use it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files from the current output")

// write puts got in testdata/name.
func write(t testing.TB, name string, got []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("testdata", name), got, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Check compares got with testdata/name, or writes it there with -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		write(t, name, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in this package creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update in this package rewrites it after review)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// Held checks a list of names that may grow but never lose one (the
// result's field names, the commands' flags): every line of testdata/name
// must be in got, or the test fails with that line and gone (why none may
// go); every name of got must be in the file, or it fails with that name
// and added (how to record it). With -update it writes got there, a line
// a name.
func Held(t testing.TB, name string, got []string, gone, added string) {
	t.Helper()
	if *update {
		write(t, name, []byte(strings.Join(got, "\n")+"\n"))
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("%v (go test -update in this package creates it)", err)
	}
	want := strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%q is gone: %s", w, gone)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%q is new: %s", g, added)
		}
	}
}
