package resplan

// Disk is what one rank's threads put on the filesystem under --dir.
type Disk struct {
	Bytes  int64
	Inodes int64
}

// jobInodes are the job directory, its O_DIRECT probe and a kept job's
// manifest.
const jobInodes = 3

// RankDisk estimates what a rank running threads of the job's threads
// writes, on a filesystem allocating in blocks of blockSize (0:
// unknown). With --reuse the data files exist already and count nothing.
func RankDisk(j Job, threads int, blockSize int64) Disk {
	if threads == 0 {
		return Disk{}
	}
	n := int64(threads)
	d := Disk{Inodes: jobInodes}
	if j.dataPhases() && !j.Reuse {
		if j.SharedFile {
			// The rank's part of the one file; the file is one inode,
			// counted once per rank, which errs on the safe side.
			d.Bytes += n * j.FileSize
			d.Inodes++
		} else {
			d.Bytes += n * roundUp(j.FileSize, blockSize)
			d.Inodes += n
		}
	}
	if j.mdPhases() {
		files := n * int64(max(j.FilesPerThread, 0))
		d.Bytes += files * roundUp(j.MDSize, blockSize)
		d.Inodes += files
		if j.MDShared {
			d.Inodes++
		} else {
			d.Inodes += n
		}
	}
	return d
}
