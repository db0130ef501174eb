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
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files from the current output")

// Updating says whether the tests run with -update, for a test that
// compares in its own way and only needs to know when to rewrite.
func Updating() bool { return *update }

// Write puts got in testdata/name.
func Write(t testing.TB, name string, got []byte) {
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
		Write(t, name, got)
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
