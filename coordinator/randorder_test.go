package coordinator

import (
	"strings"
	"testing"

	"ioswarm/wire"
)

func TestRandOrderDefaultsAndRefuses(t *testing.T) {
	for in, want := range map[string]string{"": wire.OrderShuffle, "shuffle": wire.OrderShuffle, "uniform": wire.OrderUniform} {
		o := Workload{RandOrder: in}
		if err := o.validateRandOrder(); err != nil || o.RandOrder != want {
			t.Errorf("--rand-order %q: got %q, %v; want %q", in, o.RandOrder, err, want)
		}
	}
	o := Workload{RandOrder: "random"}
	if err := o.validateRandOrder(); err == nil || !strings.Contains(err.Error(), `--rand-order "random"`) {
		t.Errorf("--rand-order random: error %v, want one naming the flag and value", err)
	}
}

// IOzone's stonewall is refused on io_uring, naming the way out (-x).
func TestFirstDoneStopNeedsSyncEngine(t *testing.T) {
	o := Workload{FirstDoneStop: true, Engine: "io_uring"}
	if err := o.validateFirstDoneStop(); err == nil || !strings.Contains(err.Error(), "-x") {
		t.Errorf("io_uring: %v, want an error naming -x", err)
	}
	o.Engine = "sync"
	if err := o.validateFirstDoneStop(); err != nil {
		t.Errorf("sync: %v", err)
	}
}
