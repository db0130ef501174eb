package rank

import "testing"

func TestFreeSpaceWarningInBinaryUnits(t *testing.T) {
	got := freeSpaceWarning("/scratch/x", 73394683904, 2<<40)
	want := "dir /scratch/x has 68.4 GiB free, this node's threads need 2.00 TiB"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
