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
		o := Workload{Job: settings.Job{RandOrder: in}}
		o.fillDefaults()
		if o.RandOrder != want {
			t.Errorf("--rand-order %q: got %q, want %q", in, o.RandOrder, want)
		}
	}
	o := validWorkload(t)
	o.RandOrder = "random"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `--rand-order "random"`) {
		t.Errorf("--rand-order random: error %v, want one naming the flag and value", err)
	}
}

// IOzone's stonewall is refused on io_uring, naming the way out (-x).
func TestFirstDoneStopNeedsSyncEngine(t *testing.T) {
	o := Workload{Job: settings.Job{FirstDoneStop: true, Engine: settings.IOUring}}
	if err := o.validateFirstDoneStop(); err == nil || !strings.Contains(err.Error(), "-x") {
		t.Errorf("io_uring: %v, want an error naming -x", err)
	}
	o.Engine = settings.Sync
	if err := o.validateFirstDoneStop(); err != nil {
		t.Errorf("sync: %v", err)
	}
}

// --rand-call defaults to pread, keeps what the user gave, refuses an
// unknown call naming the flag and value, and refuses lseek on io_uring,
// whose operations carry their offsets.
func TestRandCallDefaultsAndRefuses(t *testing.T) {
	for in, want := range map[settings.RandCall]settings.RandCall{"": settings.CallPread, "pread": settings.CallPread, "lseek": settings.CallLseek} {
		o := Workload{Job: settings.Job{RandCall: in}}
		o.fillDefaults()
		if o.RandCall != want {
			t.Errorf("--rand-call %q: got %q, want %q", in, o.RandCall, want)
		}
	}
	o := validWorkload(t)
	o.RandCall = "mmap"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `--rand-call "mmap"`) {
		t.Errorf("--rand-call mmap: error %v, want one naming the flag and value", err)
	}
	o.RandCall, o.Engine, o.IODepth = settings.CallLseek, settings.IOUring, 4
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--rand-call lseek needs --engine sync") {
		t.Errorf("--rand-call lseek --engine io_uring: error %v", err)
	}
	o.Engine, o.IODepth = settings.Sync, 1
	if err := o.Validate(); err != nil {
		t.Errorf("--rand-call lseek --engine sync: %v", err)
	}
}
