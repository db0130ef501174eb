package coordinator

import "ioswarm/settings"

// validateFirstDoneStop checks --first-done-stop against the engine: the
// stop is IOzone's, which issues one record at a time; with operations in
// flight on a ring a stopped thread's fsync could not follow its last
// counted record.
func (o *Workload) validateFirstDoneStop() error {
	if o.FirstDoneStop && o.Engine == settings.IOUring {
		return usagef("--first-done-stop (IOzone's stonewall, on in ioswarm iozone unless -x): needs --engine sync, one record at a time as IOzone")
	}
	return nil
}
