package wire

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// JobDirPrefix starts the name of every job directory.
const JobDirPrefix = "ioswarm-"

// JobDir is the only directory a job writes in: <dir>/ioswarm-<jobid>.
func JobDir(dir, jobID string) string {
	return filepath.Join(dir, JobDirPrefix+jobID)
}

// ThreadFile is thread's file in the job directory.
func ThreadFile(jobDir string, thread int) string {
	return filepath.Join(jobDir, fmt.Sprintf("t%d.dat", thread))
}

// SharedFileName is the one file of a shared-layout job, in its job directory.
const SharedFileName = "shared.dat"

// SharedFile is the shared file of the job directory jd.
func SharedFile(jd string) string { return filepath.Join(jd, SharedFileName) }

// validJobID keeps a job ID from ever naming a path outside <dir>.
var validJobID = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

// CheckJobID rejects a job ID that is not the hex a coordinator makes.
func CheckJobID(id string) error {
	if !validJobID.MatchString(id) {
		return fmt.Errorf("invalid job id %q", id)
	}
	return nil
}
