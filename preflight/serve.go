package preflight

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"ioswarm/clock"
)

// reading is one pair of clock readings taken on the node, nanoseconds:
// CLOCK_MONOTONIC (what ioswarm times with) and the wall clock.
type reading struct {
	Mono int64 `json:"mono_ns"`
	Real int64 `json:"real_ns"`
}

func now() reading { return reading{Mono: clock.Now(), Real: time.Now().UnixNano()} }

// answer is the node's first line: its report and one clock reading, for
// callers that can only run the probe once (its round trip then bounds
// the clock estimate).
type answer struct {
	Report
	Clock reading `json:"clock"`
}

// Serve runs on the node: it writes the report of Probe(dir) as one JSON
// line, then answers every line it reads with "MONO REAL", its two clocks
// as taken when the line arrived, until its input ends.
func Serve(dir string, in io.Reader, out io.Writer) error {
	a := answer{Report: Probe(dir)}
	a.Clock = now()
	line, err := json.Marshal(a)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	if _, err := bw.Write(append(line, '\n')); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	br := bufio.NewReader(in)
	for {
		if _, err := br.ReadString('\n'); err != nil {
			return nil // the caller is done
		}
		r := now()
		fmt.Fprintf(bw, "%d %d\n", r.Mono, r.Real)
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// parseReading reads one "MONO REAL" answer.
func parseReading(line string) (reading, error) {
	f := strings.Fields(line)
	if len(f) != 2 {
		return reading{}, fmt.Errorf("clock answer %q: want two numbers", line)
	}
	m, err1 := strconv.ParseInt(f[0], 10, 64)
	r, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return reading{}, fmt.Errorf("clock answer %q: want two numbers", line)
	}
	return reading{Mono: m, Real: r}, nil
}

// sample is one round trip: this machine's clocks when the question left
// and when the answer came, and the node's answer.
type sample struct {
	sent, got, node reading
}

// Offset is a clock comparison: node clock minus this machine's, for the
// monotonic and the wall clock, and a bound on the error of both.
type Offset struct {
	MonoNS  int64 `json:"mono_offset_ns"`
	WallNS  int64 `json:"wall_offset_ns"`
	ErrorNS int64 `json:"clock_error_ns"`
}

// estimate takes the round trip with the shortest time: the node read its
// clocks somewhere between sent and got, so taking the midpoint is wrong
// by at most half the round trip.
func estimate(samples []sample) (Offset, bool) {
	best := -1
	for i, s := range samples {
		if rtt := s.got.Mono - s.sent.Mono; rtt >= 0 && (best < 0 || rtt < samples[best].got.Mono-samples[best].sent.Mono) {
			best = i
		}
	}
	if best < 0 {
		return Offset{}, false
	}
	s := samples[best]
	rtt := s.got.Mono - s.sent.Mono
	return Offset{
		MonoNS:  s.node.Mono - (s.sent.Mono + rtt/2),
		WallNS:  s.node.Real - (s.sent.Real + (s.got.Real-s.sent.Real)/2),
		ErrorNS: (rtt + 1) / 2,
	}, true
}
