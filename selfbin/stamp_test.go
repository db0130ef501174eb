package selfbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func stampedHashOf(t *testing.T, path, stamp string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hash, err := StampedHash(f, stamp)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

// The first start hashes and stamps; a later one takes the stamp's word
// while the file is untouched, and hashes again once it was rewritten,
// even with the same size and contents restored.
func TestStampedHashTrustsOnlyAnUntouchedFile(t *testing.T) {
	dir := t.TempDir()
	bin, stamp := filepath.Join(dir, "ioswarm"), filepath.Join(dir, "ioswarm.rank-verified.h")
	if err := os.WriteFile(bin, []byte("abc"), 0o700); err != nil {
		t.Fatal(err)
	}
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := stampedHashOf(t, bin, stamp); got != abc {
		t.Fatalf("first hash %s, want %s", got, abc)
	}
	b, err := os.ReadFile(stamp)
	if err != nil || !strings.HasPrefix(string(b), abc+" ") {
		t.Fatalf("stamp %q (%v), want the hash and the file's identity", b, err)
	}
	// A stamp that says another hash for the same identity is believed:
	// that is what spares the reading (and why only the user's private
	// cache directory holds stamps).
	other := strings.Repeat("0", 64)
	if err := os.WriteFile(stamp, []byte(strings.Replace(string(b), abc, other, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := stampedHashOf(t, bin, stamp); got != other {
		t.Fatalf("with an untouched file the stamp was not used: %s", got)
	}
	time.Sleep(10 * time.Millisecond) // so the change time moves on coarse clocks too
	if err := os.WriteFile(bin, []byte("abc"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := stampedHashOf(t, bin, stamp); got != abc {
		t.Errorf("after a rewrite the stale stamp was believed: %s, want %s", got, abc)
	}
	if b, _ := os.ReadFile(stamp); !strings.HasPrefix(string(b), abc+" ") {
		t.Errorf("the stamp was not renewed: %q", b)
	}
}

// A binary outside the launcher's cache (the test binary here) is hashed
// whole and gets no stamp beside it.
func TestCachedImageOutsideTheCacheHashesAndWritesNothing(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	got, err := CachedImage(t.TempDir(), "h")
	if err != nil || got != self.Hash {
		t.Fatalf("CachedImage = %s, %v; want the binary's hash %s", got, err, self.Hash)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(self.Path), "*verified*")); len(m) > 0 {
		t.Errorf("stamps written beside a binary outside the cache: %v", m)
	}
}
