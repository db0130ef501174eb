package acceptance

import (
	"fmt"
	"strconv"
	"strings"

	"ioswarm/wire"
)

// Expectation is one expected figure: a phase's bandwidth or operation
// rate at a thread count, at least (or at most) a value.
type Expectation struct {
	Text    string // as the user wrote it, for the table
	Phase   string
	AtMost  bool    // "<=": the figure must not exceed Value
	Value   float64 // bytes/s for bandwidth, operations/s for IOPS
	Ops     bool    // Value is operations/s
	Unit    string  // the unit it was written in, for printing
	Threads int
}

// rateUnits are the units an expectation may be written in: how many
// bytes (or operations) per second one of them is, and whether it counts
// operations. Decimal units, as vendors quote them; binary ones too.
var rateUnits = map[string]struct {
	scale float64
	ops   bool
}{
	"gb/s": {1e9, false}, "mb/s": {1e6, false}, "tb/s": {1e12, false}, "kb/s": {1e3, false},
	"gib/s": {1 << 30, false}, "mib/s": {1 << 20, false}, "tib/s": {1 << 40, false},
	"iops": {1, true}, "kiops": {1e3, true}, "miops": {1e6, true}, "ops/s": {1, true}, "kops/s": {1e3, true},
}

// Parse reads a comma-separated list of expectations, each
// PHASE>=VALUE UNIT@THREADS or PHASE<=VALUE UNIT@THREADS, for example
// "write>=20GB/s@64,read>=23GB/s@32,randread>=500kIOPS@256". Bandwidth
// goes with sequential phases and IOPS with random and metadata ones.
func Parse(spec string) ([]Expectation, error) {
	var out []Expectation
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		e, err := parseOne(item)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no expectation in %q (want e.g. write>=20GB/s@64)", spec)
	}
	return out, nil
}

func parseOne(item string) (Expectation, error) {
	e := Expectation{Text: item}
	op := ">="
	i := strings.Index(item, op)
	if i < 0 {
		op, e.AtMost = "<=", true
		i = strings.Index(item, op)
	}
	if i <= 0 {
		return e, fmt.Errorf("want PHASE>=VALUE@THREADS or PHASE<=VALUE@THREADS")
	}
	e.Phase = strings.TrimSpace(item[:i])
	known := false
	for _, p := range wire.Phases {
		known = known || string(p) == e.Phase
	}
	if !known {
		return e, fmt.Errorf("%q is no phase", e.Phase)
	}
	rest := item[i+len(op):]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return e, fmt.Errorf("no thread count: end with @THREADS")
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest[at+1:]))
	if err != nil || n < 1 {
		return e, fmt.Errorf("thread count %q: want a whole number of at least 1", rest[at+1:])
	}
	e.Threads = n
	value := strings.TrimSpace(rest[:at])
	end := strings.IndexFunc(value, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if end <= 0 {
		return e, fmt.Errorf("no number before the unit in %q", value)
	}
	v, err := strconv.ParseFloat(value[:end], 64)
	if err != nil || v < 0 {
		return e, fmt.Errorf("value %q: want a number", value[:end])
	}
	e.Unit = strings.TrimSpace(value[end:])
	u, ok := rateUnits[strings.ToLower(e.Unit)]
	if !ok {
		return e, fmt.Errorf("unit %q: want GB/s, MB/s, GiB/s, MiB/s, IOPS, kIOPS or ops/s", e.Unit)
	}
	e.Value, e.Ops = v*u.scale, u.ops
	if counts := wire.Phase(e.Phase).CountsOps(); counts != e.Ops {
		want := "a bandwidth (GB/s)"
		if counts {
			want = "an operation rate (IOPS)"
		}
		return e, fmt.Errorf("%s is judged by %s", e.Phase, want)
	}
	return e, nil
}
