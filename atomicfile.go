package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeFileAtomic writes a result file so that a reader, a crash or a
// power cut finds either the old file or the new one whole, never half:
// a temporary file beside it, written and synced, renamed over it, and
// the directory synced so the rename itself survives.
//
// A link is followed (its target is replaced, not the link), and a path
// that is not a regular file (--output /dev/null) is written in place:
// renaming over a device would replace the device.
func writeFileAtomic(flag, path string, write func(io.Writer) error) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return writeFile(flag, path, write)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	if err := write(f); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	if d, err := os.Open(dir); err == nil {
		// Some filesystems refuse fsync on a directory; the rename is
		// then as durable as they make it.
		_ = d.Sync()
		d.Close()
	}
	return nil
}
