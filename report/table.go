package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/units"
	"ioswarm/wire"
)

// WriteTable writes job as an aligned human-readable table: a header block
// describing the run, one compact row per phase iteration, a summary
// across iterations for phases run more than once, and the job's
// warnings. An incomplete job starts with a line no reader can miss.
func WriteTable(w io.Writer, job *result.Job) error {
	return WriteTableWith(w, job, Details{})
}

// WriteTableWith is WriteTable with the detail blocks d asks for.
func WriteTableWith(w io.Writer, job *result.Job, d Details) error {
	if job == nil {
		return errors.New("no job to report")
	}
	ew := &ErrWriter{W: w, What: "table"}
	if !job.Complete {
		reason := job.Error
		if reason == "" {
			reason = "the run ended early"
		}
		fmt.Fprintf(ew, "INCOMPLETE RUN: %s — figures below are not a measurement of the whole job\n\n", Clean(reason))
	}
	writeHeader(ew, job)
	writeCompact(ew, job.Phases)
	if d.Phases {
		writePhases(ew, job.Phases)
	}
	if d.Nodes {
		writeNodes(ew, job.Phases)
	}
	if d.Threads {
		writeThreads(ew, job.Phases)
	}
	writeSummary(ew, job.Phases)
	writeWarnings(ew, job.Warnings)
	return ew.Err
}

// ErrWriter keeps the first write error so a writer of many lines can
// print freely and report the failure once, naming what it was writing.
type ErrWriter struct {
	W    io.Writer
	What string // "table", "comparison", ...
	Err  error
}

func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	if err != nil {
		e.Err = fmt.Errorf("writing %s: %w", e.What, err)
	}
	return n, e.Err
}

// Clean replaces tabs and line breaks, which would break a table's
// columns, and other control characters with spaces. The study tables use
// it too.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// row writes cells tab-terminated, so every cell, the last included, takes
// part in the column alignment.
func row(w io.Writer, cells ...string) {
	fmt.Fprint(w, strings.Join(cells, "\t")+"\t\n")
}

// pair writes a key and its value; the value is the last cell, so long
// values do not widen the key column or leave trailing spaces.
func pair(w io.Writer, key, value string) {
	fmt.Fprintf(w, "%s\t%s\n", key, value)
}

func writeHeader(w io.Writer, job *result.Job) {
	c := job.Config
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	id := Clean(job.JobID)
	if job.Label != "" {
		id += "  (label " + Clean(job.Label) + ")"
	}
	pair(tw, "job", id)
	pair(tw, "ioswarm", Clean(job.Version)+", started "+Clean(job.StartedAt))
	pair(tw, "command", Clean(job.CommandLine))
	pair(tw, "launcher", Clean(job.Launcher))
	pair(tw, "nodes", nodesText(job.Hosts))
	threads := strconv.Itoa(c.Threads)
	if c.ThreadsFrom != "" {
		threads += " (" + Clean(c.ThreadsFrom) + ")"
	}
	pair(tw, "threads", threads)
	pair(tw, "block size", units.FormatBinary(c.BlockSize)+" (random "+units.FormatBinary(c.RandBlockSize)+")")
	pair(tw, "file size", units.FormatBinary(c.FileSize)+" per thread")
	pair(tw, "total", units.FormatBinary(c.Total))
	pair(tw, "dir", Clean(c.Dir))
	pair(tw, "fs type", fsTypes(job.Hosts))
	if m := mounts(job.Hosts); m != "" {
		pair(tw, "mount", m)
	}
	pair(tw, "reads", readShift(c)+furtherReads(job.Phases, c.ReadShift))
	if c.ReusedJob != "" {
		pair(tw, "files", "those job "+Clean(c.ReusedJob)+" kept (--reuse)")
	}
	if c.Keep && job.Complete {
		id := Clean(job.JobID)
		if c.ReusedJob != "" {
			id = Clean(c.ReusedJob)
		}
		pair(tw, "kept", fmt.Sprintf("files in %s/%s%s; read them again with --reuse %s", Clean(c.Dir), wire.JobDirPrefix, id, id))
	}
	if mem := memory(job.Hosts, c.ServerCache); mem != "" {
		pair(tw, "memory", mem)
	}
	if cc := clientCaches(job.Hosts); cc != "" {
		pair(tw, "client cache", cc)
	}
	osync := ""
	switch {
	case c.OSync:
		osync = ", O_SYNC on"
	case c.ODSync:
		osync = ", O_DSYNC on"
	}
	pair(tw, "i/o", fmt.Sprintf("fsync %s, O_DIRECT %s%s, drop caches %s", onOff(c.Fsync), onOff(c.Direct), osync, orDash(Clean(c.DropCaches.String()))))
	if c.Engine == settings.IOUring {
		e := fmt.Sprintf("io_uring, iodepth %d per thread (qdN after IOPS: the depth achieved)", c.IODepth)
		if !c.Direct {
			e += "; buffered I/O on io_uring is served by kernel workers"
		}
		pair(tw, "engine", e)
	}
	pair(tw, "clock", "offsets known to within "+units.FormatDuration(clockError(job.Hosts)))
	tw.Flush()
	fmt.Fprintln(w)
}

// fsTypes lists the distinct filesystem types of --dir in host order; more
// than one means the nodes did not all see the same filesystem.
func fsTypes(hosts []result.Host) string {
	var types []string
	seen := map[string]bool{}
	for _, h := range hosts {
		t := orDash(Clean(h.FSType))
		if !seen[t] {
			seen[t] = true
			types = append(types, t)
		}
	}
	return orDash(strings.Join(types, ", "))
}

// mounts lists the distinct mounts holding --dir: source at mount point.
func mounts(hosts []result.Host) string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hosts {
		if h.MountPoint == "" {
			continue
		}
		m := Clean(h.FSSource) + " at " + Clean(h.MountPoint)
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// readShift says whose files the read phases read.
func readShift(c result.Config) string {
	if c.ReadShift == 0 {
		return "each thread its own file (--read-shift 0)"
	}
	return fmt.Sprintf("each thread the file written %d node(s) along (--read-shift %d)", c.ReadShift, c.ReadShift)
}

// memory sums what the clients can cache, each kernel once, and adds
// what the user said of the servers.
// The rule is the one the coordinator's cache check used (each kernel
// once), so the header and the check never disagree.
func memory(hosts []result.Host, server int64) string {
	facts := make([]nodefacts.Facts, len(hosts))
	for i, h := range hosts {
		facts[i] = nodefacts.Facts{BootID: h.BootID, CacheBytes: h.CacheBytes, ClientCache: clientCacheInfo(h.ClientCache)}
	}
	total, kernels := nodefacts.ClientCache(facts)
	if total == 0 {
		return ""
	}
	s := fmt.Sprintf("clients can cache %s (%d kernel(s))", units.FormatBinary(total), kernels)
	if server > 0 {
		s += ", servers " + units.FormatBinary(server)
	}
	return s
}

// clockError is the largest bound on any rank's clock-offset error: the
// uncertainty of every time in the table.
func clockError(hosts []result.Host) int64 {
	var worst int64
	for _, h := range hosts {
		worst = max(worst, h.ClockErrorNS)
	}
	return worst
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
