package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every bad invocation: one line naming the culprit, exit code 2, nothing
// created on disk.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	readOnly := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := []string{"--dir", dir}
	cases := []struct {
		name string
		args []string
		want []string // all must appear in the error line
	}{
		{"zero threads", append(d, "--threads", "0"), []string{"--threads", "0"}},
		{"negative threads", append(d, "--threads", "-3"), []string{"--threads", "-3"}},
		{"unknown phase", append(d, "--phases", "write,raed"), []string{"--phases", "raed"}},
		{"duplicate phase", append(d, "--phases", "write,write"), []string{"--phases", "write"}},
		{"empty phases", append(d, "--phases", ","), []string{"--phases"}},
		{"unparsable total", append(d, "--total", "12Q"), []string{"--total", "12Q"}},
		{"zero total", append(d, "--total", "0"), []string{"--total", "0"}},
		{"negative file size", append(d, "--file-size", "-1M"), []string{"--file-size", "-1M"}},
		{"decimal unit", append(d, "--block", "16MB"), []string{"--block", "16MB"}},
		{"zero block", append(d, "--block", "0"), []string{"--block", "0"}},
		{"block not 512-aligned", append(d, "--block", "1000"), []string{"--block", "1000"}},
		{"file size not whole records", append(d, "--file-size", "100MiB"), []string{"--file-size", "100MiB", "96MiB", "112MiB"}},
		{"total below threads x block", append(d, "--total", "16MiB", "--threads", "4"), []string{"--total", "16MiB", "--threads 4"}},
		{"total not divisible", append(d, "--total", "100MiB", "--threads", "4", "--block", "16MiB"), []string{"--total", "100MiB", "64MiB", "128MiB"}},
		{"direct unaligned", append(d, "--direct", "--block", "6144"), []string{"--direct", "6144"}},
		{"rand block unaligned", append(d, "--rand-block", "1000"), []string{"--rand-block", "1000"}},
		{"conflicting sizes", append(d, "--total", "1GiB", "--file-size", "64MiB"), []string{"--total", "--file-size"}},
		{"missing dir", []string{"--dir", filepath.Join(dir, "nope")}, []string{"--dir", "nope"}},
		{"dir is a file", []string{"--dir", notDir}, []string{"--dir", "not a directory"}},
		{"unknown format", append(d, "--format", "xml"), []string{"--format", "xml"}},
		{"bad drop-caches", append(d, "--drop-caches", "maybe"), []string{"--drop-caches", "maybe"}},
		{"zero iterations", append(d, "--iterations", "0"), []string{"--iterations", "0"}},
		{"zero local ranks", append(d, "--local-ranks", "0"), []string{"--local-ranks", "0"}},
		{"negative stonewall", append(d, "--stonewall", "-1s"), []string{"--stonewall"}},
		{"unknown flag", append(d, "--thredas", "4"), []string{"thredas"}},
		{"not a number", append(d, "--threads", "four"), []string{"threads", "four"}},
		{"stray argument", append(d, "4"), []string{"\"4\""}},
		{"fsync both ways", append(d, "--fsync", "--no-fsync"), []string{"--fsync", "--no-fsync"}},
		{"both sync modes", append(d, "--o-sync", "--o-dsync"), []string{"--o-sync", "--o-dsync"}},
	}
	if os.Geteuid() != 0 {
		// Root can write into a 0555 directory, so only non-root can
		// exercise this one.
		cases = append(cases, struct {
			name string
			args []string
			want []string
		}{"unwritable dir", []string{"--dir", readOnly}, []string{"--dir", "not writable"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, append([]string{"run"}, c.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("want one error line, got %d:\n%s", len(lines), stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("error line lacks %q: %s", w, lines[0])
				}
			}
			if left := dirEntries(t, dir); len(left) != 0 {
				t.Fatalf("bad input created %v", left)
			}
		})
	}
}
