package nodefacts

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFreePageReportingReadsTheBalloonsFeatureBit(t *testing.T) {
	for _, c := range []struct {
		name     string
		features []string // one balloon device each
		want     bool
	}{
		{"no balloon", nil, false},
		{"reporting (bit 5)", []string{"0110010100000000"}, true},
		{"balloon without reporting", []string{"0110000100000000"}, false},
		{"free page hinting only (bit 3)", []string{"0001000000000000"}, false},
		{"a features file too short to say", []string{"0110"}, false},
		{"the second of two balloons reports", []string{"0100000000", "0000010000"}, true},
	} {
		sys := t.TempDir()
		for i, f := range c.features {
			dev := filepath.Join(sys, "bus/virtio/drivers/virtio_balloon", "virtio"+string(rune('0'+i)))
			if err := os.MkdirAll(dev, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dev, "features"), []byte(f+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := freePageReporting(sys); got != c.want {
			t.Errorf("%s: freePageReporting = %v, want %v", c.name, got, c.want)
		}
	}
}
