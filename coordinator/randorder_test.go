package coordinator

import (
	"ioswarm/settings"
	"strings"
	"testing"
)

// A workload built in Go without an order gets the flag's default,
// shuffle; one the user gave is kept; an unknown one is refused by
// Validate, naming the flag and the value.
func TestRandOrderDefaultsAndRefuses(t *testing.T) {
	for in, want := range map[settings.RandOrder]settings.RandOrder{"": settings.Shuffle, "shuffle": settings.Shuffle, "uniform": settings.Uniform} {
		o := Workload{RandOrder: in}
		o.fillDefaults()
		if o.RandOrder != want {
			t.Errorf("--rand-order %q: got %q, want %q", in, o.RandOrder, want)
		}
	}
	o := validWorkload(t)
	o.RandOrder = "random"
	if err := o.Validate(localLaunch); err == nil || !strings.Contains(err.Error(), `--rand-order "random"`) {
		t.Errorf("--rand-order random: error %v, want one naming the flag and value", err)
	}
}

// IOzone's stonewall is refused on io_uring, naming the way out (-x).
func TestFirstDoneStopNeedsSyncEngine(t *testing.T) {
	o := Workload{FirstDoneStop: true, Engine: settings.IOUring}
	if err := o.validateFirstDoneStop(); err == nil || !strings.Contains(err.Error(), "-x") {
		t.Errorf("io_uring: %v, want an error naming -x", err)
	}
	o.Engine = settings.Sync
	if err := o.validateFirstDoneStop(); err != nil {
		t.Errorf("sync: %v", err)
	}
}
