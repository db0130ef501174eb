package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"ioswarm/figures"
	"ioswarm/result"
)

// CSVHeader returns the CSV column names. They are a stable interface for
// spreadsheets and scripts: columns may be appended, never renamed,
// removed or reordered.
func CSVHeader() []string {
	return []string{
		"label", "timestamp", "job_id", "command_line", "launcher", "hosts", "threads",
		"block_size", "file_size", "total", "phase", "iteration", "bytes", "ops", "window_ns",
		"bandwidth", "bandwidth_gbs", "bandwidth_gibs", "first_done_bandwidth", "sum_of_rates",
		"iops", "lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns", "start_skew_ns",
		"cache_drop", "resident_fraction", "stonewalled", "complete",
		// The phase's spread across its iterations (figures.Summarize), the
		// same on every iteration's row: n, then mean, sample stddev, min
		// and max of bandwidth and of IOPS.
		"iterations", "bandwidth_mean", "bandwidth_stddev", "bandwidth_min", "bandwidth_max",
		"iops_mean", "iops_stddev", "iops_min", "iops_max",
		// A read phase's cache verdict (storage or maybe-cache; empty for
		// other phases) and the reason codes of its maybe-cache nodes.
		"cache_verdict", "cache_reasons",
	}
}

// WriteCSV writes one row per phase iteration of job, preceded by the
// column names when header is true (false lets a sweep append the rows of
// several jobs under one header). Rates are bytes or operations per
// second, times nanoseconds, sizes bytes; floats carry every digit.
func WriteCSV(w io.Writer, job *result.Job, header bool) error {
	if job == nil {
		return errors.New("no job to write as CSV")
	}
	cw := csv.NewWriter(w)
	if header {
		if err := cw.Write(CSVHeader()); err != nil {
			return fmt.Errorf("writing CSV header: %w", err)
		}
	}
	spread := map[string]figures.Summary{}
	for _, s := range figures.Summarize(job.Phases) {
		spread[s.Name] = s
	}
	for i := range job.Phases {
		p := &job.Phases[i]
		row := append(csvRow(job, p), spreadColumns(spread[p.Name])...)
		row = append(row, p.CacheVerdict, strings.Join(p.CacheReasons(), " "))
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("writing CSV row for phase %s iteration %d: %w", job.Phases[i].Name, job.Phases[i].Iteration, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// spreadColumns are the spread columns of a phase name's rows.
func spreadColumns(s figures.Summary) []string {
	stat := func(st figures.Stat) []string {
		return []string{exact(st.Mean), exact(st.Stddev), exact(st.Min), exact(st.Max)}
	}
	return append(append([]string{strconv.Itoa(s.Iterations)}, stat(s.Bandwidth)...), stat(s.IOPS)...)
}

func csvRow(job *result.Job, p *result.Phase) []string {
	c := job.Config
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []string{
		job.Label, job.StartedAt, job.JobID, job.CommandLine, job.Launcher,
		strconv.Itoa(len(job.Hosts)), strconv.Itoa(c.Threads),
		i64(c.BlockSize), i64(c.FileSize), i64(c.Total),
		p.Name, strconv.Itoa(p.Iteration), i64(p.Bytes), i64(p.Ops), i64(p.WindowNS),
		exact(p.Bandwidth), exact(p.Bandwidth / gigabyte), exact(p.Bandwidth / gibibyte),
		exact(p.FirstDoneBandwidth), exact(p.SumOfRates), exact(p.IOPS),
		i64(p.Latency.P50), i64(p.Latency.P99), i64(p.Latency.P999), i64(p.Latency.Max),
		i64(p.StartSkewNS), p.CacheDrop.String(), exact(p.ResidentFraction),
		strconv.FormatBool(p.Stonewalled), strconv.FormatBool(job.Complete),
	}
}
