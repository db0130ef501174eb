package result

// Series is a phase's time series: Bytes[k] and Ops[k] completed in the
// interval [StartNS + k·StepNS, StartNS + (k+1)·StepNS) on the
// coordinator's clock, from the phase's earliest thread start; the
// intervals cover its window. Counts are exact at operation granularity
// and add up to the phase's bytes and ops; rates are never averaged.
type Series struct {
	StartNS int64        `json:"start_ns"`
	StepNS  int64        `json:"step_ns"`
	Bytes   []int64      `json:"bytes"`
	Ops     []int64      `json:"ops"`
	ByHost  []HostSeries `json:"by_host,omitempty"`
}

// LatencySeries holds a random phase's latency histogram per interval:
// Histograms[k] has every operation that completed in [StartNS + k·StepNS,
// StartNS + (k+1)·StepNS), StartNS being the phase's release on the
// coordinator's clock, merged over every thread of every node by adding
// buckets; P99 is each interval's 99th percentile, 0 for an empty one.
type LatencySeries struct {
	StartNS    int64        `json:"start_ns"`
	StepNS     int64        `json:"step_ns"`
	Histograms []*Histogram `json:"histograms"`
	P99        []int64      `json:"p99_ns"`
}

// HostSeries is one node's part of a Series, interval by interval.
type HostSeries struct {
	Host  string  `json:"host"`
	Bytes []int64 `json:"bytes"`
	Ops   []int64 `json:"ops"`
}
