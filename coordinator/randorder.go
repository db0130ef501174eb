package coordinator

import "ioswarm/wire"

// validateRandOrder checks --rand-order; empty (options built in Go) is
// the default, shuffle: each block once per pass, as IOzone's -i2 and
// fio's default do, so a buffered random read never finds a block that
// the same phase already brought into the page cache.
func (o *Workload) validateRandOrder() error {
	switch o.RandOrder {
	case "":
		o.RandOrder = wire.OrderShuffle
	case wire.OrderShuffle, wire.OrderUniform:
	default:
		return usagef("--rand-order %q: must be shuffle or uniform", o.RandOrder)
	}
	return nil
}

// validateFirstDoneStop checks --first-done-stop against the engine: the
// stop is IOzone's, which issues one record at a time; with operations in
// flight on a ring a stopped thread's fsync could not follow its last
// counted record.
func (o *Workload) validateFirstDoneStop() error {
	if o.FirstDoneStop && o.Engine == "io_uring" {
		return usagef("--first-done-stop (IOzone's stonewall, on in ioswarm iozone unless -x): needs --engine sync, one record at a time as IOzone")
	}
	return nil
}
