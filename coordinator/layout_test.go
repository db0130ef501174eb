package coordinator

import (
	"strings"
	"testing"

	"ioswarm/internal/usage"
	"ioswarm/settings"
)

// Layout and metadata options are checked before anything starts; each
// refusal is a usage error naming the flag and the value.
func TestLayoutAndMetadataValidation(t *testing.T) {
	base := func() Workload {
		return Workload{Dir: t.TempDir(), Threads: 3, Total: 3 << 20, Block: 1 << 20, RandBlock: 4096,
			Phases: settings.PhaseList{"write", "read"}, DropCaches: "auto", Iterations: 1}
	}
	for _, c := range []struct {
		want string
		set  func(o *Workload)
	}{
		{`--layout "n-1"`, func(o *Workload) { o.Layout = "n-1" }},
		{`--pattern "round"`, func(o *Workload) { o.Layout, o.Pattern = settings.Shared, "round" }},
		{"--pattern strided: needs --layout shared", func(o *Workload) { o.Pattern = settings.Strided }},
		{"--rand-scope file: needs --layout shared", func(o *Workload) { o.RandScope = settings.ScopeFile }},
		{"--block 6KiB is not a multiple of --rand-block 4KiB", func(o *Workload) {
			o.Layout, o.Pattern, o.Block, o.Total, o.Phases = settings.Shared, settings.Strided, 6144, 3*6144*2, settings.PhaseList{"randread"}
			o.RandBlock = 4096
			o.Total = 3 * 12288
		}},
		{"--files-per-thread 0", func(o *Workload) { o.Phases = settings.PhaseList{"mdcreate"} }},
		{`--md-dir "flat"`, func(o *Workload) { o.MDDir = "flat" }},
		{"--md-size -1", func(o *Workload) { o.MDSize = -1 }},
		{"--engine io_uring: the metadata phases (mdstat)", func(o *Workload) {
			o.Phases, o.FilesPerThread, o.Engine, o.IODepth = settings.PhaseList{"write", "mdstat"}, 10, "io_uring", 4
		}},
		{"--reuse: the metadata phases (mdread)", func(o *Workload) {
			o.Phases, o.FilesPerThread, o.Reuse = settings.PhaseList{"mdread"}, 10, "latest"
		}},
	} {
		o := base()
		c.set(&o)
		err := o.Settle(localLaunch)
		if !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want a usage error with %q, got %v", c.want, err)
		}
	}
	o := base()
	o.Layout, o.Pattern, o.Phases, o.FilesPerThread = settings.Shared, settings.Strided, settings.PhaseList{"write", "mdcreate", "mddelete"}, 5
	if err := o.Settle(localLaunch); err != nil || o.RandScope != settings.ScopeSegment || o.MDDir != settings.MDDirPerThread {
		t.Errorf("valid shared strided job with metadata: %v (scope %q, md dir %q)", err, o.RandScope, o.MDDir)
	}
}
