package result

import (
	"encoding/json"
	"testing"
)

// The field names of DESIGN §9 are a contract with users' scripts: fields
// may be added, never renamed or dropped. This test lists them all and
// fails if a marshalled result lacks any of them.
func TestResultFieldsAreTheContract(t *testing.T) {
	job := Job{
		Hosts:  []Host{{}},
		Phases: []Phase{{Threads: []Thread{{}}}},
	}
	doc := marshalled(t, job)
	need := func(obj map[string]any, where string, keys ...string) { t.Helper(); needKeys(t, obj, where, keys...) }
	need(doc, "result", "ioswarm_version", "job_id", "command_line", "started_at", "launcher",
		"config", "hosts", "phases")
	need(doc["config"].(map[string]any), "config", "threads", "block_size", "rand_block_size",
		"file_size", "total", "dir", "direct", "fsync", "phases")
	need(doc["hosts"].([]any)[0].(map[string]any), "hosts[0]", "host", "rank", "threads", "kernel",
		"fs_type", "clock_offset_ns", "clock_error_ns")
	phase := doc["phases"].([]any)[0].(map[string]any)
	need(phase, "phases[0]", "name", "iteration", "bytes", "ops", "bandwidth", "first_done_bandwidth",
		"sum_of_rates", "iops", "window_ns", "start_skew_ns", "latency_ns", "cache_drop",
		"resident_fraction", "stonewalled", "first_done_ns", "threads")
	need(phase["latency_ns"].(map[string]any), "latency_ns", "p50", "p99", "p999", "max")
	need(phase["threads"].([]any)[0].(map[string]any), "threads[0]", "host", "rank", "thread", "file",
		"bytes", "ops", "start_ns", "end_ns", "bytes_at_first_done")
}

// The fields the cache checks added (DESIGN §10): names users' scripts
// may now rely on as well.
func TestCacheFieldsAreNamed(t *testing.T) {
	job := Job{
		Hosts: []Host{{}},
		Phases: []Phase{{CacheGuard: &CacheGuard{}, ResidentByHost: []HostResidency{{}},
			Warnings: []string{"w"}, Threads: []Thread{{WrittenByHost: "h", WrittenByThread: new(int)}}}},
	}
	doc := marshalled(t, job)
	need := func(obj map[string]any, where string, keys ...string) { t.Helper(); needKeys(t, obj, where, keys...) }
	need(doc["config"].(map[string]any), "config", "read_shift")
	need(doc["hosts"].([]any)[0].(map[string]any), "hosts[0]", "mem_total", "cache_bytes", "mount_point",
		"fs_source", "mount_options", "fs_block_size")
	phase := doc["phases"].([]any)[0].(map[string]any)
	need(phase, "phases[0]", "cache_guard", "resident_by_host", "warnings")
	need(phase["cache_guard"].(map[string]any), "cache_guard", "applies", "warned", "client_cache",
		"server_cache", "required_total", "total")
	need(phase["resident_by_host"].([]any)[0].(map[string]any), "resident_by_host[0]", "host", "resident_fraction")
	need(phase["threads"].([]any)[0].(map[string]any), "threads[0]", "written_by_thread", "written_by_host")
}

// marshalled is job as the generic JSON document a script would see.
func marshalled(t *testing.T, job Job) map[string]any {
	t.Helper()
	data, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// needKeys fails for each key obj lacks.
func needKeys(t *testing.T, obj map[string]any, where string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s lacks %q", where, k)
		}
	}
}
