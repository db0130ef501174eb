package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// balloonReports reads this machine's virtio balloons the way the kernel
// shows them (one '0' or '1' per feature bit, bit 0 first): whether one
// reports free pages to the hypervisor (bit 5).
func balloonReports(t *testing.T) bool {
	t.Helper()
	files, _ := filepath.Glob("/sys/bus/virtio/drivers/virtio_balloon/virtio*/features")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		if len(b) > 5 && b[5] == '1' {
			return true
		}
	}
	return false
}

// A buffered job on a machine whose balloon reports free pages records so
// for its node and warns, naming it; on one without, neither.
func TestFreePageReportingIsRecordedAndWarnedAsTheMachineDoes(t *testing.T) {
	want := balloonReports(t)
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := run(t, "run", "--dir", t.TempDir(), "--total", "4MiB", "--block", "1MiB",
		"--phases", "write", "--drop-caches", "off", "--output", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	job := loadResult(t, out)
	if len(job.Hosts) != 1 || job.Hosts[0].FreePageReporting != want {
		t.Fatalf("hosts %+v, want one with free_page_reporting %v (this machine's balloon)", job.Hosts, want)
	}
	var warned []string
	for _, w := range job.Warnings {
		if strings.Contains(w, "free page reporting") {
			warned = append(warned, w)
		}
	}
	switch {
	case want && (len(warned) != 1 || !strings.HasPrefix(warned[0], "host "+job.Hosts[0].Host+": ")):
		t.Errorf("this machine reports free pages; warnings %q, want one naming host %s", job.Warnings, job.Hosts[0].Host)
	case !want && len(warned) != 0:
		t.Errorf("this machine's balloon does not report free pages, yet %q", warned)
	}
	t.Logf("this machine reports free pages: %v", want)
}
