package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command reads its host file once: the launcher's nodes and IOzone's
// one-thread-per-line rule take the same reading, so a file removed (or
// rewritten) after the first read changes neither.
func TestHostFileReadOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "clients")
	text := "n1 /scratch /usr/bin/iozone\nn2 /scratch /usr/bin/iozone\nn3 /scratch /usr/bin/iozone\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	o := &launchOptions{Hosts: path}
	entries, source, err := o.hostEntries()
	if err != nil || len(entries) != 3 || !strings.HasPrefix(source, "iozone client file") {
		t.Fatalf("first read: %d entries from %q, %v", len(entries), source, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if n, src := o.iozoneClients(); n != 3 || src != source {
		t.Errorf("after the file is gone: %d clients from %q; want the first reading's 3 from %q", n, src, source)
	}
	if again, _, err := o.hostEntries(); err != nil || len(again) != 3 || again[2].Host != "n3" {
		t.Errorf("second read: %v, %v; want the first reading", again, err)
	}
	// Another --hosts is another reading.
	o.Hosts = "a[1-2]"
	if e, src, err := o.hostEntries(); err != nil || len(e) != 2 || src != "inline list" {
		t.Errorf("--hosts a[1-2]: %v from %q, %v", e, src, err)
	}
	if n, _ := o.iozoneClients(); n != 0 {
		t.Errorf("an inline list counts %d IOzone clients, want 0", n)
	}
}
