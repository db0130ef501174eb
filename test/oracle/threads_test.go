package oracle

import (
	"math"
	"sort"

	"golang.org/x/sys/unix"
)

// session is one thread's use of one file as the kernel saw it: from the
// entry of the openat that returned fd to the exit of its close, with the
// bytes every read or write returned on the way. It is keyed by OS
// thread and descriptor: each thread of the sync engine runs its phase on
// one thread with a descriptor table of its own (rank/ownfiles.go), so
// one number names different files on two threads of one process.
type session struct {
	pid, fd    int
	tid        int   // the thread that opened, used and closed the file
	start, end int64 // openat entry, close exit
	flags      int64 // the openat's flags
	bytes, ops int64
	done       []completion // each read or write's exit, in order
	fsyncNS    int64        // time inside fsync
	fsyncs     []call       // each fsync
}

// call is one syscall's thread, entry and exit.
type call struct {
	tid         int
	enter, exit int64
}

type completion struct{ at, bytes int64 }

// sessions rebuilds every file session that moved data. Sessions without a
// read or write (the rank checking residency, a probe) are left out, so
// what remains are the benchmark threads' phases.
func sessions(evs []event) []*session {
	type pending struct {
		call  string
		fd    int
		flags int64 // an openat's
		dfd   int64 // an openat's directory descriptor
		enter int64
	}
	open := map[[2]int]*session{} // (tid, fd) → session
	inCall := map[int]pending{}   // tid → the call it is in
	var out []*session
	for _, e := range evs {
		if e.call == "sched_switch" {
			continue
		}
		if !e.exit {
			inCall[e.tid] = pending{call: e.call, fd: int(e.args["fd"]), flags: e.args["flags"], dfd: e.args["dfd"], enter: e.ns}
			continue
		}
		p, ok := inCall[e.tid]
		if !ok || p.call != e.call {
			continue // its entry came before tracing started
		}
		delete(inCall, e.tid)
		key := [2]int{e.tid, p.fd}
		switch e.call {
		case "openat":
			// The rank opens every file of the job in its job
			// directory's descriptor; a file opened by path is not
			// the job's (the memory guard reads /proc/self/statm with
			// pread during a phase that outlasts its 100 ms poll).
			if e.ret >= 0 && !byPath(p.dfd) {
				open[[2]int{e.tid, int(e.ret)}] = &session{pid: e.pid, fd: int(e.ret), tid: e.tid, start: p.enter, flags: p.flags}
			}
		case "pwrite64", "pread64":
			if s := open[key]; s != nil && e.ret > 0 {
				s.bytes += e.ret
				s.ops++
				s.done = append(s.done, completion{at: e.ns, bytes: e.ret})
			}
		case "fsync":
			if s := open[key]; s != nil {
				s.fsyncNS += e.ns - p.enter
				s.fsyncs = append(s.fsyncs, call{tid: e.tid, enter: p.enter, exit: e.ns})
			}
		case "close":
			if s := open[key]; s != nil {
				delete(open, key)
				s.end = e.ns
				if s.ops > 0 {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// kernelFigures are the phase figures by ioswarm's definitions, computed
// from the kernel's timestamps.
type kernelFigures struct {
	bytes, ops, window, startSkew int64
	bandwidth, sumOfRates, iops   float64
	minRate, maxRate              float64
	firstDoneBytes                int64
	firstDone                     float64
	// bytesAt is what every thread's calls had returned by time at.
	bytesAt func(at int64) int64
	fsyncNS int64
	// How far our window and our fsync_ns may exceed the kernel's because
	// threads left the CPU between a stamp and its syscall (windowSlack,
	// fsyncSlack).
	windowSlackNS, fsyncSlackNS int64
}

func figuresOf(ss []*session) kernelFigures {
	var k kernelFigures
	minStart, maxStart := int64(math.MaxInt64), int64(math.MinInt64)
	minEnd, maxEnd := int64(math.MaxInt64), int64(math.MinInt64)
	k.minRate, k.maxRate = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		k.bytes += s.bytes
		k.ops += s.ops
		k.fsyncNS += s.fsyncNS
		minStart, maxStart = min(minStart, s.start), max(maxStart, s.start)
		minEnd, maxEnd = min(minEnd, s.end), max(maxEnd, s.end)
		r := float64(s.bytes) * 1e9 / float64(s.end-s.start)
		k.sumOfRates += r
		k.minRate, k.maxRate = min(k.minRate, r), max(k.maxRate, r)
	}
	k.window = maxEnd - minStart
	k.startSkew = maxStart - minStart
	k.bandwidth = float64(k.bytes) * 1e9 / float64(k.window)
	k.iops = float64(k.ops) * 1e9 / float64(k.window)
	// First-done: what every thread's calls had returned by the first close.
	for _, s := range ss {
		i := sort.Search(len(s.done), func(i int) bool { return s.done[i].at > minEnd })
		for _, c := range s.done[:i] {
			k.firstDoneBytes += c.bytes
		}
	}
	k.firstDone = float64(k.firstDoneBytes) * 1e9 / float64(minEnd-minStart)
	k.bytesAt = func(at int64) int64 {
		var n int64
		for _, s := range ss {
			i := sort.Search(len(s.done), func(i int) bool { return s.done[i].at > at })
			for _, c := range s.done[:i] {
				n += c.bytes
			}
		}
		return n
	}
	return k
}

// byPath says whether an openat's directory descriptor is AT_FDCWD, as
// the trace prints it (a 32-bit int, sign-extended or not).
func byPath(dfd int64) bool { return int32(dfd) == unix.AT_FDCWD }
