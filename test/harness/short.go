package harness

import "testing"

// SkipShort skips an integration test under go test -short, saying what
// makes it one (the real binary, a test bed, root), so that -short runs
// exactly the unit tests. Call it before any setup the test would do.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("integration test (%s): skipped in -short mode", what)
	}
}
