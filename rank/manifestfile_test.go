package rank

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/wire"
)

// nobodyUID is the user a planted decoy belongs to: any user but this one.
const nobodyUID = 65534

// keepJob leaves a kept job's directory and manifest under dir, with the
// manifest's modification time set to at.
func keepJob(t *testing.T, dir, id string, at time.Time) string {
	t.Helper()
	jobDir := wire.JobDir(dir, id)
	if err := os.Mkdir(jobDir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := wire.Manifest{JobID: id, Threads: 1, FileSize: 4096, Block: 4096, Hosts: []string{"h"}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(jobDir, wire.ManifestName)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	return path
}

// findWithin runs findManifest, failing the test if it does not return
// within a limit only a hang reaches (a FIFO's open blocks for good).
func findWithin(t *testing.T, dir, id string) (wire.Manifest, error) {
	t.Helper()
	type found struct {
		m   wire.Manifest
		err error
	}
	ch := make(chan found, 1)
	go func() {
		m, err := findManifest(dir, id)
		ch <- found{m, err}
	}()
	select {
	case f := <-ch:
		return f.m, f.err
	case <-time.After(30 * time.Second):
		t.Fatalf("findManifest(%s, %q) still blocked after 30s", dir, id)
		return wire.Manifest{}, nil
	}
}

// A decoy job directory another user planted in a shared scratch
// directory, newer than the user's own kept job, is passed over: --reuse
// latest takes the user's own job.
func TestLatestPassesOverAnotherUsersDecoy(t *testing.T) {
	if testing.Short() {
		t.Skip("uses root: skipped in -short mode")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant a directory owned by another user")
	}
	dir := t.TempDir()
	keepJob(t, dir, "0aa1", time.Now().Add(-time.Hour))
	decoy := keepJob(t, dir, "0dd1", time.Now().Add(24*time.Hour))
	for _, p := range []string{decoy, filepath.Dir(decoy)} {
		if err := os.Lchown(p, nobodyUID, nobodyUID); err != nil {
			t.Fatal(err)
		}
	}
	m, err := findWithin(t, dir, "")
	if err != nil || m.JobID != "0aa1" {
		t.Fatalf("latest = %q, %v; want the user's own job 0aa1", m.JobID, err)
	}
}

// A link planted at a job directory's name is not followed either.
func TestLatestPassesOverLinkedJobDir(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	keepJob(t, dir, "0aa1", time.Now().Add(-time.Hour))
	keepJob(t, elsewhere, "0bb1", time.Now().Add(time.Hour))
	if err := os.Symlink(wire.JobDir(elsewhere, "0bb1"), wire.JobDir(dir, "0bb1")); err != nil {
		t.Fatal(err)
	}
	m, err := findWithin(t, dir, "")
	if err != nil || m.JobID != "0aa1" {
		t.Fatalf("latest = %q, %v; want 0aa1, not the linked directory", m.JobID, err)
	}
}

// A FIFO at a manifest's name neither hangs the search nor the read: the
// search passes it over, a named job says it is not a regular file.
func TestManifestFIFORefused(t *testing.T) {
	dir := t.TempDir()
	jobDir := wire.JobDir(dir, "0ff1")
	if err := os.Mkdir(jobDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(jobDir, wire.ManifestName), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := findWithin(t, dir, "0ff1")
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("named job with a FIFO manifest: %v, want 'not a regular file'", err)
	}
	_, err = findWithin(t, dir, "")
	if err == nil || !strings.Contains(err.Error(), "passed over 1 job directories") {
		t.Fatalf("latest with only a FIFO manifest: %v, want it passed over", err)
	}
	keepJob(t, dir, "0aa1", time.Now().Add(-time.Hour))
	if m, err := findWithin(t, dir, ""); err != nil || m.JobID != "0aa1" {
		t.Fatalf("latest = %q, %v; want 0aa1 beside the FIFO", m.JobID, err)
	}
}

// A sparse manifest of 1 TiB is refused by its size, before any of it is
// read (reading it whole ran the rank out of memory).
func TestManifestHugeSparseRefused(t *testing.T) {
	dir := t.TempDir()
	path := keepJob(t, dir, "0ee1", time.Now())
	if err := os.Truncate(path, 1<<40); err != nil {
		t.Skipf("this filesystem cannot hold a 1 TiB sparse file: %v", err)
	}
	_, err := findWithin(t, dir, "0ee1")
	if err == nil || !strings.Contains(err.Error(), "more than a manifest's limit") {
		t.Fatalf("named job with a 1 TiB manifest: %v, want the size limit named", err)
	}
	if _, err := findWithin(t, dir, ""); err == nil || !strings.Contains(err.Error(), "more than a manifest's limit") {
		t.Fatalf("latest with only a 1 TiB manifest: %v, want it passed over with the limit named", err)
	}
}

// Control characters in the directory stay quoted in the error: one line.
func TestManifestErrorIsOneLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x\ny")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := findWithin(t, dir, "")
	if err == nil || strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error %q: want one line", err)
	}
}
