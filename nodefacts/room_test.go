package nodefacts

import (
	"strconv"
	"testing"
)

func TestMeminfoField(t *testing.T) {
	in := "MemTotal:       24563708 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n"
	if got := meminfoField(in, "MemAvailable:"); got != 2048<<10 {
		t.Errorf("MemAvailable = %d, want %d", got, 2048<<10)
	}
	if got := meminfoField(in, "SwapFree:"); got != 0 {
		t.Errorf("a missing line gives %d", got)
	}
}

func TestRoomOnThisMachine(t *testing.T) {
	r := gatherRoom(t.TempDir())
	if r.MemAvailable <= 0 || !r.SpaceKnown || r.FreeBytes <= 0 || r.Device == "" {
		t.Errorf("room of a temporary directory: %+v", r)
	}
}

func TestMemAvailableHook(t *testing.T) {
	t.Setenv(MemAvailableEnv, strconv.Itoa(3<<20))
	r := gatherRoom(t.TempDir())
	if r.MemAvailable != 3<<20 || r.MemLimitNote == "" {
		t.Errorf("with %s set: %+v", MemAvailableEnv, r)
	}
}
