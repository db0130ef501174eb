package selfbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
)

// Binary is an executable file and the hex SHA-256 of its contents.
type Binary struct {
	Path string
	Hash string
}

// Self is the file this process was started from (os.Executable) and its
// hash: what a launcher runs, copies or broadcasts to the nodes.
var Self = sync.OnceValues(func() (Binary, error) {
	path, err := os.Executable()
	if err != nil {
		return Binary{}, fmt.Errorf("find own binary: %w", err)
	}
	hash, err := FileHash(path)
	if err != nil {
		return Binary{}, err
	}
	return Binary{Path: path, Hash: hash}, nil
})

// Image is the hash of the image this process runs: /proc/self/exe is
// the executed file itself, even if its path now names another file.
// Without /proc it is Self's hash, by path. A rank proves its build with
// it.
var Image = sync.OnceValues(func() (string, error) {
	hash, err := FileHash("/proc/self/exe")
	if err == nil {
		return hash, nil
	}
	self, err := Self()
	return self.Hash, err
})

// FileHash is the hex SHA-256 of a file: the identity of a binary.
func FileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
