package selfbin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(path, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := FileHash(path)
	// SHA-256("abc"), FIPS 180-2's example.
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; err != nil || got != want {
		t.Errorf("FileHash = %q, %v; want %s", got, err, want)
	}
	if _, err := FileHash(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file hashed")
	}
}

// The test binary is its own: Self and Image name it, once, alike.
func TestSelfAndImage(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	want, err := FileHash(self.Path)
	if err != nil || self.Hash != want {
		t.Errorf("Self = %+v, file hash %s (%v)", self, want, err)
	}
	again, _ := Self()
	if again != self {
		t.Errorf("Self changed: %+v then %+v", self, again)
	}
	if img, err := Image(); err != nil || img != self.Hash {
		t.Errorf("Image = %s, %v; want %s", img, err, self.Hash)
	}
}
