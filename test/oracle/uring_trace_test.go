package oracle

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// uringEvents are the kernel's io_uring tracepoints the depth oracle
// counts from: a ring made, a request taken from its submission queue,
// a completion posted to its completion queue.
var uringEvents = []string{"io_uring_create", "io_uring_submit_req", "io_uring_complete"}

// newURingTracer is an instance for the io_uring tracepoints, or skips
// the test saying why it cannot have one.
func newURingTracer(t *testing.T) *tracer {
	t.Helper()
	var events []string
	for _, ev := range uringEvents {
		events = append(events, "io_uring/"+ev)
	}
	// Each entry into the kernel, to apply the figure's own rule to the
	// kernel's counts (ruleMean).
	events = append(events, "syscalls/sys_enter_io_uring_enter", "syscalls/sys_exit_io_uring_enter")
	return openTracer(t, "the io_uring depth oracle", "ioswarm-uring", events, func(event string) string {
		return fmt.Sprintf("no tracepoint %s in this kernel; skipped", event)
	})
}

// A line of the trace for one of uringEvents: its thread, timestamp,
// event and ring.
var uringLine = regexp.MustCompile(`^\s*.+-(\d+)\s+\(\s*[\d-]+\)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+):\s+(io_uring_\w+):\s+ring\s+([0-9a-fx]+)`)

// ringLife is one ring's requests as the kernel saw them, from its
// creation: the moments it took a request and posted a completion, in
// the order they happened.
type ringLife struct {
	ring    string
	tid     int // the thread that submitted to it
	events  []ringEvent
	entries []ringEntry // the thread's entries into the kernel while the ring lived
}

// ringEntry is one io_uring_enter of the submitting thread: when the
// kernel entered and left it, and whether it waited for a completion.
type ringEntry struct {
	enter, exit int64
	waited      bool
}

type ringEvent struct {
	ns     int64
	submit bool   // taken from the submission queue; else a completion posted
	slot   uint64 // the request's user_data: ioswarm's slot
	res    int64  // a completion's result
}

// The request's user_data and a completion's result in a line; an
// io_uring_enter's min_complete.
var (
	minCompleteField = regexp.MustCompile(`min_complete: (0x[0-9a-f]+|\d+)`)
	userDataField    = regexp.MustCompile(`user_data (0x[0-9a-f]+)`)
	resultField      = regexp.MustCompile(`result (-?\d+)`)
)

// uringLives reads the instance's trace into the lives of the rings that
// took at least one request, in the order they were made, and the
// context switches (as events for eachSpell). A ring's address may be
// reused by a later one: a creation starts a new life.
func uringLives(t *testing.T, tr *tracer) ([]*ringLife, []event) {
	t.Helper()
	tr.write(t, "tracing_on", "0")
	if d := os.Getenv("ORACLE_KEEP"); d != "" {
		b, _ := os.ReadFile(filepath.Join(tr.dir, "trace"))
		_ = os.WriteFile(d, b, 0o644)
	}
	f, err := os.Open(filepath.Join(tr.dir, "trace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []*ringLife
	var switches []event
	current := map[string]*ringLife{}
	entries := map[int][]ringEntry{} // by thread
	entering := map[int]ringEntry{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line != "" && line[0] == '#' {
			if strings.Contains(line, "LOST") {
				t.Fatal("the ftrace buffer overflowed: events were lost, raise buffer_size_kb")
			}
			continue
		}
		if m := switchLine.FindStringSubmatch(line); m != nil {
			prev, _ := strconv.ParseInt(m[3], 10, 64)
			next, _ := strconv.ParseInt(m[5], 10, 64)
			switches = append(switches, event{call: "sched_switch", ns: traceNS(m[1], m[2]), state: m[4],
				args: map[string]int64{"prev": prev, "next": next}})
			continue
		}
		if m := traceLine.FindStringSubmatch(line); m != nil && m[5] == "io_uring_enter" {
			tid, _ := strconv.Atoi(m[1])
			ns := traceNS(m[3], m[4])
			if m[8] == "" {
				wait := minCompleteField.FindStringSubmatch(m[7])
				n := uint64(0)
				if wait != nil {
					n, _ = strconv.ParseUint(wait[1], 0, 64)
				}
				entering[tid] = ringEntry{enter: ns, waited: n > 0}
			} else if e, ok := entering[tid]; ok {
				delete(entering, tid)
				e.exit = ns
				entries[tid] = append(entries[tid], e)
			}
			continue
		}
		m := uringLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		tid, _ := strconv.Atoi(m[1])
		ns, name, ring := traceNS(m[2], m[3]), m[4], m[5]
		if name == "io_uring_create" {
			l := &ringLife{ring: ring}
			current[ring] = l
			all = append(all, l)
			continue
		}
		l := current[ring]
		if l == nil {
			t.Fatalf("an event of a ring made before tracing began: %s", line)
		}
		if l.tid == 0 {
			l.tid = tid
		}
		e := ringEvent{ns: ns, submit: name == "io_uring_submit_req"}
		if f := userDataField.FindStringSubmatch(line); f != nil {
			e.slot, _ = strconv.ParseUint(f[1], 0, 64)
		}
		if f := resultField.FindStringSubmatch(line); f != nil {
			e.res, _ = strconv.ParseInt(f[1], 10, 64)
		}
		l.events = append(l.events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var used []*ringLife
	for _, l := range all {
		if len(l.events) == 0 {
			continue
		}
		first, last := l.events[0].ns, l.events[len(l.events)-1].ns
		for _, e := range entries[l.tid] {
			if e.exit >= first && e.enter <= last {
				l.entries = append(l.entries, e)
			}
		}
		used = append(used, l)
	}
	return used, switches
}

// kernelDepth is what a ring's kernel held by its own trace: requests
// taken and not yet posted, at each taking (counting the one taken) and
// averaged over time from the first taking to the last posting.
type kernelDepth struct {
	submits          int64
	atSubmitMean     float64
	atSubmitMax      int
	timeMean         float64
	spanNS           int64
	unposted, posted int
}

func depthOf(l *ringLife) kernelDepth {
	var k kernelDepth
	var held int
	var sum, area, first, last int64
	for i, e := range l.events {
		if i == 0 {
			first = e.ns
		} else {
			area += int64(held) * (e.ns - last)
		}
		last = e.ns
		if e.submit {
			held++
			k.submits++
			sum += int64(held)
			k.atSubmitMax = max(k.atSubmitMax, held)
			continue
		}
		held--
		k.posted++
	}
	k.unposted = held
	if k.submits > 0 {
		k.atSubmitMean = float64(sum) / float64(k.submits)
	}
	if k.spanNS = last - first; k.spanNS > 0 {
		k.timeMean = float64(area) / float64(k.spanNS)
	}
	return k
}

// entrySlack is the area (request-ns) by which the submitting thread's
// preemption inside its entries into the kernel may move our integral of
// the count off the kernel's. We count an entry's submissions from our
// clock reading before it (or, in an entry that waits for nothing, as
// taken evenly across it) and its postings at our reading after it, so a
// spell preempted next to the kernel's taking or posting of requests
// puts ours off by up to that many for that long: 25 ms once, taken at
// the way back to user space after an entry had posted everything, with
// the machine at load 15. Such a spell leaves the CPU runnable: "R+"
// preempted in the kernel, "R" at the way out (the worker never calls
// sched_yield; its yields to the Go scheduler sleep, "S"). Sleeps never
// count: the wait for a completion is in both figures, and between
// entries the two counts agree.
func entrySlack(l *ringLife, switches []event) int64 {
	evs := l.events
	var total int64
	eachSpell(switches, l.tid, evs[0].ns, evs[len(evs)-1].ns, func(state string, at, d int64) {
		if state != "R" && state != "R+" {
			return
		}
		// The ring's events are all the thread's: none falls in the spell.
		i := sort.Search(len(evs), func(i int) bool { return evs[i].ns >= at })
		if i > 0 && at-evs[i-1].ns <= stampHorizon {
			total += d * int64(runOf(evs[:i], evs[i-1].submit, -1)) // right after these
		}
		if i < len(evs) && evs[i].ns-(at+d) <= stampHorizon {
			total += d * int64(runOf(evs[i:], evs[i].submit, 1)) // right before these
		}
	})
	return total
}

// runOf counts the events of one kind (taken or posted) in a row at one
// end of evs: from the first forwards (dir 1) or the last backwards (-1).
func runOf(evs []ringEvent, submit bool, dir int) int {
	n := 0
	for i := 0; i < len(evs); i++ {
		j := i
		if dir < 0 {
			j = len(evs) - 1 - i
		}
		if evs[j].submit != submit {
			break
		}
		n++
	}
	return n
}

// opLatencies is each operation's time in the kernel by its trace: from
// the taking of its request to the posting of its last completion (a
// request the kernel answered EAGAIN or EINTR is queued again by its
// slot, and the operation goes on).
func opLatencies(l *ringLife) []int64 {
	var out []int64
	taken := map[uint64]int64{} // slot: when its operation's first request was taken
	for _, e := range l.events {
		if e.submit {
			if _, busy := taken[e.slot]; !busy {
				taken[e.slot] = e.ns
			}
			continue
		}
		if e.res == -int64(unix.EAGAIN) || e.res == -int64(unix.EINTR) {
			continue
		}
		if at, ok := taken[e.slot]; ok {
			out = append(out, e.ns-at)
			delete(taken, e.slot)
		}
	}
	return out
}

// ruleMean is the mean over time the figure's own rule gives
// (rank/uring_depth.go: an entry's requests counted from its start where
// it waited, as taken evenly across it where it did not, its postings at
// its return, the count held between entries) applied to the kernel's
// own counts at each entry's start and return and the requests it took
// inside: what ioswarm must report if it computes what it defines.
// Against the kernel's own mean it differs by the rule's approximation.
func ruleMean(l *ringLife) (float64, bool) {
	if len(l.entries) == 0 {
		return 0, false
	}
	// One walk over the events, which like the entries are in time
	// order: held is the kernel's count after the events applied so far.
	evs := l.events
	k, held := 0, 0
	apply := func() {
		if evs[k].submit {
			held++
		} else {
			held--
		}
		k++
	}
	var area int64
	after, last := 0, int64(0)
	for i, en := range l.entries {
		for k < len(evs) && evs[k].ns < en.enter {
			apply()
		}
		before, n := held, 0
		for k < len(evs) && evs[k].ns <= en.exit {
			if evs[k].submit {
				n++
			}
			apply()
		}
		if i > 0 {
			area += int64(after) * (en.enter - last)
		}
		if en.waited {
			area += int64(before+n) * (en.exit - en.enter)
		} else {
			area += int64(2*before+n) * (en.exit - en.enter) / 2
		}
		after, last = held, en.exit
	}
	span := last - l.entries[0].enter
	if span <= 0 {
		return 0, false
	}
	return float64(area) / float64(span), true
}
