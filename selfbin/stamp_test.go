package selfbin

import (
	"os"
	"os/exec"
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

// statID is the identity the launcher's scripts stamp, from coreutils.
func statID(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("stat", "-c", "%d %i %s %y %z", path).Output()
	if err != nil {
		t.Skipf("no coreutils stat here: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// The identity a rank computes is, character for character, what the
// launcher's scripts stamp with stat: else no stamp would ever match.
func TestFileIDIsWhatStatPrints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ioswarm")
	if err := os.WriteFile(path, []byte("abc"), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := fileID(f)
	if want := statID(t, path); err != nil || got != want {
		t.Errorf("fileID = %q, %v; stat prints %q", got, err, want)
	}
}

// A stamp naming the file's identity is believed, unread; once the file
// was rewritten (same size, same contents restored) it is not, and the
// file is hashed. The rank writes no stamp of its own.
func TestStampedHashTrustsOnlyAnUntouchedFile(t *testing.T) {
	dir := t.TempDir()
	bin, stamp := filepath.Join(dir, "ioswarm"), filepath.Join(dir, "ioswarm.verified.h")
	if err := os.WriteFile(bin, []byte("abc"), 0o700); err != nil {
		t.Fatal(err)
	}
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := stampedHashOf(t, bin, stamp); got != abc {
		t.Fatalf("with no stamp: %s, want %s", got, abc)
	}
	if _, err := os.Stat(stamp); err == nil {
		t.Error("the rank wrote a stamp")
	}
	// Another hash under the file's identity comes back: the stamp was
	// believed and the file not read.
	other := strings.Repeat("0", 64)
	if err := os.WriteFile(stamp, []byte(other+" "+statID(t, bin)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := stampedHashOf(t, bin, stamp); got != other {
		t.Fatalf("a stamp naming the untouched file was not used: %s", got)
	}
	time.Sleep(10 * time.Millisecond) // so the change time moves on coarse clocks too
	if err := os.WriteFile(bin, []byte("abc"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := stampedHashOf(t, bin, stamp); got != abc {
		t.Errorf("after a rewrite the stale stamp was believed: %s, want %s", got, abc)
	}
}

// A binary outside the launcher's cache (the test binary here) is hashed
// whole.
func TestCachedImageOutsideTheCacheHashes(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := CachedImage(t.TempDir(), "h"); err != nil || got != self.Hash {
		t.Fatalf("CachedImage = %s, %v; want the binary's hash %s", got, err, self.Hash)
	}
}
