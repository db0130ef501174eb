package resplan

import (
	"ioswarm/settings"
	"testing"
)

func TestRankDisk(t *testing.T) {
	data := []settings.Phase{"write", "read"}
	md := []settings.Phase{"mdcreate", "mdstat", "mddelete"}
	cases := []struct {
		name    string
		job     Job
		threads int
		bs      int64
		want    Disk
	}{
		{"per-thread files", Job{FileSize: GiB, Phases: data}, 4, 4096, Disk{4 * GiB, jobInodes + 4}},
		{"files round up to blocks", Job{FileSize: 5000, Phases: data}, 2, 4096, Disk{2 * 8192, jobInodes + 2}},
		{"one shared file", Job{FileSize: GiB, Phases: data, SharedFile: true}, 4, 4096, Disk{4 * GiB, jobInodes + 1}},
		{"reuse writes nothing new", Job{FileSize: GiB, Phases: []settings.Phase{"read"}, Reuse: true}, 4, 4096, Disk{0, jobInodes}},
		{"metadata files and a directory each", Job{FileSize: GiB, Phases: md, FilesPerThread: 1000, MDSize: 3901}, 2, 4096,
			Disk{2 * 1000 * 4096, jobInodes + 2*1000 + 2}},
		{"empty metadata files in one directory", Job{FileSize: GiB, Phases: md, FilesPerThread: 10, MDShared: true}, 3, 4096,
			Disk{0, jobInodes + 30 + 1}},
		{"no threads, nothing", Job{FileSize: GiB, Phases: data}, 0, 4096, Disk{}},
	}
	for _, c := range cases {
		if got := RankDisk(c.job, c.threads, c.bs); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
