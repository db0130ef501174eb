package result

// Thread is one thread's record for one phase. Start is taken before open,
// End after close, both converted to the coordinator's clock.
type Thread struct {
	Host             string `json:"host"`
	Rank             int    `json:"rank"`
	Thread           int    `json:"thread"`
	File             string `json:"file"`
	Bytes            int64  `json:"bytes"`
	Ops              int64  `json:"ops"`
	StartNS          int64  `json:"start_ns"`
	EndNS            int64  `json:"end_ns"`
	BytesAtFirstDone int64  `json:"bytes_at_first_done"`
	// OpsAtFirstDone is the operations the thread had completed at the
	// first-done moment (metadata phases).
	OpsAtFirstDone int64 `json:"ops_at_first_done,omitempty"`
	// How long the thread's timed fsync and close took (0: none timed, as
	// past a stonewall or without fsync); both lie inside [start, end].
	FsyncNS int64 `json:"fsync_ns,omitempty"`
	CloseNS int64 `json:"close_ns,omitempty"`
	// The thread whose file this thread used, and its host: itself in
	// writing phases, the rotated writer in read phases (--read-shift).
	// Absent from files written before ioswarm recorded them.
	WrittenByThread *int   `json:"written_by_thread,omitempty"`
	WrittenByHost   string `json:"written_by_host,omitempty"`
	// The depth this thread's io_uring loop achieved (see Phase).
	IODepthAchievedMean float64 `json:"iodepth_achieved_mean,omitempty"`
	IODepthAchievedMax  int     `json:"iodepth_achieved_max,omitempty"`
	IODepthSamples      int64   `json:"iodepth_samples,omitempty"`
	// The depth the kernel held for this thread (see Phase), with the
	// submissions and the span (first entry into the kernel to the last
	// return) that weight it in the phase's figures.
	IODepthKernelAtSubmitMean float64 `json:"iodepth_kernel_at_submit_mean,omitempty"`
	IODepthKernelAtSubmitMax  int     `json:"iodepth_kernel_at_submit_max,omitempty"`
	IODepthKernelSamples      int64   `json:"iodepth_kernel_samples,omitempty"`
	IODepthKernelTimeMean     float64 `json:"iodepth_kernel_time_mean,omitempty"`
	IODepthKernelSpanNS       int64   `json:"iodepth_kernel_span_ns,omitempty"`
	// IOzone's stonewall, live (config first_done_stop; see docs/iozone.md):
	// the bytes and operations the thread had completed when the first
	// thread's stop reached it (all of them for the thread that raised
	// it), and when its own time ended, after its fsync and close of the
	// partial file (IOzone's xfer count and time). RaisedStopNS is when
	// this thread raised the stop after its last record (0: another
	// thread did); UntimedEndNS is when a stopped writer had finished the
	// rest of its file, untimed. Times on the coordinator's clock; all 0
	// without the live stop.
	StonewallBytes int64 `json:"stonewall_bytes,omitempty"`
	StonewallOps   int64 `json:"stonewall_ops,omitempty"`
	StonewallEndNS int64 `json:"stonewall_end_ns,omitempty"`
	RaisedStopNS   int64 `json:"raised_stop_ns,omitempty"`
	UntimedEndNS   int64 `json:"untimed_end_ns,omitempty"`
	// The CPU time, user + system, of the thread's own OS thread from its
	// start to the end of its work on the file (a stopped writer's
	// untimed rest included), and the wall time of that span: IOzone's
	// -+u figures per child (docs/iozone.md). Absent when not measured
	// (files of older ioswarm).
	CPUNS     int64 `json:"cpu_ns,omitempty"`
	CPUWallNS int64 `json:"cpu_wall_ns,omitempty"`
}
