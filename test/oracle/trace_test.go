package oracle

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/result"
	"ioswarm/test/harness"
)

// traced are the syscall events the oracle rebuilds the threads from.
var traced = []string{"openat", "close", "pwrite64", "pread64", "fsync"}

// tracer is a private ftrace instance: its own buffer, events, clock and
// pid filter, so nothing another user of ftrace set is disturbed.
type tracer struct {
	dir     string // instances/<name> under tracefs
	mounted string // tracefs mount point this test made, "" if none
}

// newTracer makes the instance for the syscalls the oracle checks, or
// skips the test saying why it cannot.
func newTracer(t *testing.T) *tracer {
	t.Helper()
	var events []string
	for _, ev := range traced {
		events = append(events, "syscalls/sys_enter_"+ev, "syscalls/sys_exit_"+ev)
	}
	return openTracer(t, "the kernel-side oracle", "ioswarm-oracle", events, func(event string) string {
		ev := strings.TrimPrefix(strings.TrimPrefix(event, "syscalls/sys_enter_"), "syscalls/sys_exit_")
		return fmt.Sprintf("no syscall tracepoint for %s (kernel without CONFIG_FTRACE_SYSCALLS?); skipped", ev)
	})
}

// openTracer makes a private instance named after prefix that records
// events (paths under events/) and the traced threads' context switches,
// on the monotonic clock the ranks read; or skips the test, naming what
// (who) needs root and, through missing, the tracepoint this kernel lacks.
func openTracer(t *testing.T, who, prefix string, events []string, missing func(event string) string) *tracer {
	t.Helper()
	harness.SkipShort(t, who+" traces the real binary with ftrace")
	if os.Geteuid() != 0 {
		t.Skip(who + " needs root to use ftrace (tracefs); skipped")
	}
	root, mounted := findTracefs()
	if root == "" {
		t.Skip("tracefs is not available (not mounted at /sys/kernel/tracing or /sys/kernel/debug/tracing, and mounting it failed); skipped")
	}
	for _, ev := range events {
		if _, err := os.Stat(filepath.Join(root, "events", ev)); err != nil {
			unmount(mounted)
			t.Skip(missing(ev))
		}
	}
	tr := &tracer{dir: filepath.Join(root, "instances", fmt.Sprintf("%s-%d", prefix, os.Getpid())), mounted: mounted}
	if err := os.Mkdir(tr.dir, 0o700); err != nil {
		unmount(mounted)
		t.Skipf("cannot make an ftrace instance: %v; skipped", err)
	}
	t.Cleanup(tr.close)
	tr.write(t, "tracing_on", "0")
	tr.write(t, "trace_clock", "mono") // CLOCK_MONOTONIC, the clock ranks read
	tr.write(t, "buffer_size_kb", "16384")
	tr.write(t, "options/event-fork", "1")  // children of a traced pid are traced
	tr.write(t, "options/record-tgid", "1") // print each event's process id
	for _, ev := range events {
		tr.write(t, "events/"+ev+"/enable", "1")
	}
	// Context switches of the traced threads: a thread preempted between
	// its clock reading and its syscall (or inside an entry into the
	// kernel, before the kernel takes or posts a request) moves our stamp
	// off the kernel's by the time it was off the CPU, which the checks
	// then allow.
	tr.write(t, "events/sched/sched_switch/enable", "1")
	return tr
}

// findTracefs returns where tracefs is mounted, mounting it at
// /sys/kernel/tracing when it is nowhere (and then also that mount point).
func findTracefs() (root, mounted string) {
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if st, err := os.Stat(filepath.Join(d, "instances")); err == nil && st.IsDir() {
			return d, ""
		}
	}
	const d = "/sys/kernel/tracing"
	if err := unix.Mount("nodev", d, "tracefs", 0, ""); err != nil {
		return "", ""
	}
	return d, d
}

func unmount(mounted string) {
	if mounted != "" {
		_ = unix.Unmount(mounted, 0)
	}
}

func (tr *tracer) write(t *testing.T, file, value string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(tr.dir, file), []byte(value), 0); err != nil {
		t.Fatalf("ftrace %s: %v", file, err)
	}
}

// wrap returns the command line that traces a program: a shell that puts
// its own pid in the instance's filter, turns tracing on and execs argv,
// so the program and every process it starts are traced from their first
// instruction, and nothing else is.
func (tr *tracer) wrap(argv ...string) []string {
	script := `echo $$ > "$1/set_event_pid" && echo 1 > "$1/tracing_on" && shift && exec "$@"`
	return append([]string{"sh", "-c", script, "sh", tr.dir}, argv...)
}

// events stops tracing and reads what was recorded.
func (tr *tracer) events(t *testing.T) []event {
	t.Helper()
	tr.write(t, "tracing_on", "0")
	// ORACLE_KEEP=file keeps the raw trace, to see what a failure saw.
	if d := os.Getenv("ORACLE_KEEP"); d != "" {
		b, _ := os.ReadFile(filepath.Join(tr.dir, "trace"))
		_ = os.WriteFile(d, b, 0o644)
	}
	f, err := os.Open(filepath.Join(tr.dir, "trace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, lost, err := parseTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	if lost {
		t.Fatal("the ftrace buffer overflowed: events were lost, raise buffer_size_kb")
	}
	return evs
}

// runTraced runs ioswarm under the tracer and reads its result.
func runTraced(t *testing.T, tr *tracer, args []string) result.Job {
	t.Helper()
	argv := tr.wrap(args...)
	o := harness.RunCmd(t, exec.Command(argv[0], argv[1:]...), 2*time.Minute)
	if o.Code != 0 {
		t.Fatalf("ioswarm exited %d\n%s", o.Code, o.Stderr)
	}
	var job result.Job
	if err := json.Unmarshal([]byte(o.Stdout), &job); err != nil {
		t.Fatalf("result: %v\n%s", err, o.Stdout)
	}
	return job
}

// close removes the instance (its events go with it) and unmounts what
// newTracer mounted.
func (tr *tracer) close() {
	_ = os.WriteFile(filepath.Join(tr.dir, "tracing_on"), []byte("0"), 0)
	for i := 0; i < 50; i++ { // rmdir fails while the buffer is read
		if err := unix.Rmdir(tr.dir); err == nil || errors.Is(err, unix.ENOENT) {
			break
		}
	}
	unmount(tr.mounted)
}

// event is one syscall entry or exit, or a context switch (call
// "sched_switch": args "prev" and "next" are the thread switched out and
// the one switched in, state how the one switched out left: "R+"
// preempted, "R" yielded, "D" waiting uninterruptibly, "S" asleep).
type event struct {
	tid, pid int
	ns       int64  // CLOCK_MONOTONIC
	call     string // openat, close, ..., sched_switch
	exit     bool
	args     map[string]int64 // entry: the arguments
	ret      int64            // exit: the return value
	state    string           // sched_switch: prev's state
}

// A context switch: prev_pid and prev_state of the thread leaving the CPU,
// next_pid of the one taking it.
var switchLine = regexp.MustCompile(`^\s*.+-\d+\s+\(\s*[\d-]+\)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+):\s+sched_switch:.*\sprev_pid=(\d+)\s.*prev_state=(\S+)\s+==>.*\snext_pid=(\d+)\s`)

// A line of the trace with record-tgid: comm-tid (tgid) [cpu] flags ts: name(args) or name -> ret
var traceLine = regexp.MustCompile(`^\s*.+-(\d+)\s+\(\s*(\d+)\)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+):\s+sys_(\w+)(\((.*)\)| -> (0x[0-9a-f]+|-?\d+))\s*$`)

// parseTrace reads ftrace's text output; lost reports an overflowed buffer.
func parseTrace(f *os.File) (evs []event, lost bool, err error) {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if strings.Contains(line, "LOST") {
				lost = true
			}
			continue
		}
		if m := switchLine.FindStringSubmatch(line); m != nil {
			e := event{call: "sched_switch", ns: traceNS(m[1], m[2]), args: map[string]int64{}}
			prev, _ := strconv.ParseInt(m[3], 10, 64)
			next, _ := strconv.ParseInt(m[5], 10, 64)
			e.args["prev"], e.args["next"] = prev, next
			// R+: preempted. R alone: it gave the CPU up runnable
			// (sched_yield, as the release spin does); S, D, ...: it waited.
			e.state = m[4]
			evs = append(evs, e)
			continue
		}
		m := traceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := event{call: m[5]}
		e.tid, _ = strconv.Atoi(m[1])
		e.pid, _ = strconv.Atoi(m[2])
		e.ns = traceNS(m[3], m[4])
		if m[8] != "" {
			e.exit = true
			e.ret, err = strconv.ParseInt(m[8], 0, 64)
			if err != nil {
				// Negative errors print as 0xffff…: read them as int64.
				u, uerr := strconv.ParseUint(m[8], 0, 64)
				if uerr != nil {
					return nil, false, fmt.Errorf("bad return in %q", line)
				}
				e.ret, err = int64(u), nil
			}
		} else {
			e.args = map[string]int64{}
			for _, kv := range strings.Split(m[7], ", ") {
				k, v, ok := strings.Cut(kv, ": ")
				if !ok {
					continue
				}
				if u, perr := strconv.ParseUint(v, 0, 64); perr == nil {
					e.args[k] = int64(u)
				}
			}
		}
		evs = append(evs, e)
	}
	return evs, lost, sc.Err()
}

// traceNS reads a trace timestamp's seconds and fraction as ns.
func traceNS(sec, frac string) int64 {
	s, _ := strconv.ParseInt(sec, 10, 64)
	f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	return s*1e9 + f
}

// spells says which of a thread's spells off the CPU offCPU counts.
type spells int

const (
	preempted     spells = iota // "R+": it could have run on
	preemptOrWait               // also "D": a page fault's read
)

// offCPU is how long thread tid was off the CPU in the spells that began
// within [from, to] and are of a kind which counts. A yield ("R", the
// release spin's sched_yield) never counts, nor a sleep ("S"): a stamp
// that drifted to before a wait must still fail the checks.
func offCPU(evs []event, tid int, from, to int64, which spells) int64 {
	var total int64
	eachSpell(evs, tid, from, to, func(state string, at, d int64) {
		if state == "R+" || which >= preemptOrWait && state == "D" {
			total += d
		}
	})
	return total
}

// spellsNear lists thread tid's spells off the CPU that began within 2 ms
// of moment ref, of every kind but the release spin's short yields (R
// under 0.1 ms), each as its state, start from ref and length.
func spellsNear(evs []event, tid int, ref int64) []string {
	var out []string
	eachSpell(evs, tid, ref-2e6, ref+2e6, func(state string, at, d int64) {
		if state != "R" || d >= 1e5 {
			out = append(out, fmt.Sprintf("%s at %+d ns for %d ns", state, at-ref, d))
		}
	})
	return out
}

// eachSpell calls f for each spell off the CPU of thread tid that began
// within [from, to]: the state it left in, when, and for how long.
func eachSpell(evs []event, tid int, from, to int64, f func(state string, at, d int64)) {
	var at int64
	state := ""
	for _, e := range evs {
		if e.call != "sched_switch" {
			continue
		}
		switch {
		case state == "" && int(e.args["prev"]) == tid && e.ns >= from && e.ns <= to:
			at, state = e.ns, e.state
		case state != "" && int(e.args["next"]) == tid:
			f(state, at, e.ns-at)
			state = ""
		}
	}
}
