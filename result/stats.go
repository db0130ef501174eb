package result

// Spread is min, mean and max of a per-thread figure.
type Spread struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// Latency holds percentiles in nanoseconds.
type Latency struct {
	P50  int64 `json:"p50"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p999"`
	Max  int64 `json:"max"`
}

// Histogram is a sparse log-linear latency histogram: Counts[i] operations
// fell in bucket Buckets[i]; the bucket layout is named by SubBits.
type Histogram struct {
	SubBits int     `json:"sub_bits"`
	Buckets []int   `json:"buckets"`
	Counts  []int64 `json:"counts"`
	// Min and Max are the exact extreme values recorded; the buckets alone
	// would only bound them to within a bucket's width.
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// Stat summarises one figure over the iterations of a phase.
type Stat struct {
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Stddev float64 `json:"stddev"` // sample standard deviation (n−1); 0 for n = 1
	N      int     `json:"n"`
}

// PhaseSummary holds the figures of one phase name across its iterations.
// Latency percentiles are in nanoseconds; the other figures are rates.
type PhaseSummary struct {
	Name               string `json:"name"`
	Iterations         int    `json:"iterations"`
	Bandwidth          Stat   `json:"bandwidth"`
	FirstDoneBandwidth Stat   `json:"first_done_bandwidth"`
	SumOfRates         Stat   `json:"sum_of_rates"`
	IOPS               Stat   `json:"iops"`
	P50                Stat   `json:"p50"`
	P99                Stat   `json:"p99"`
	P999               Stat   `json:"p999"`
}
