package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/units"
)

// MaxResultBytes caps how much LoadJob reads: far above any real result
// file (a 512-thread job with many iterations is a few MiB), low enough
// that a wrong file or a pipe that never ends cannot exhaust memory.
const MaxResultBytes = 1 << 30

// LoadJob reads a result file. name is used only in error messages, which
// say what is wrong with the file ("results.json: truncated JSON at byte
// 1234"). It rejects files over MaxResultBytes, anything that is not a
// JSON object shaped like a result, files without ioswarm_version, and
// latency histograms that do not validate. It never panics.
func LoadJob(r io.Reader, name string) (*result.Job, error) {
	return loadJob(r, name, MaxResultBytes)
}

func loadJob(r io.Reader, name string, limit int64) (*result.Job, error) {
	data, err := readCapped(r, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	job, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := validate(job); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return job, nil
}

// readCapped reads all of r, failing once more than limit bytes arrive.
// It reads into chunks that double up to 8 MiB and joins them once at the
// end: growing one slice would copy the data again at every growth step,
// which for a stream near the limit costs seconds, while small files
// still cost only small allocations.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	var chunks [][]byte
	var total int64
	size := int64(64 << 10)
	for {
		chunk := make([]byte, min(size, limit+1-total))
		size = min(2*size, 8<<20)
		n, err := io.ReadFull(lr, chunk)
		chunks = append(chunks, chunk[:n])
		total += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading result file: %w", err)
		}
		if total > limit {
			return nil, fmt.Errorf("larger than %s, the limit for a result file", units.FormatBinary(limit))
		}
	}
	return bytes.Join(chunks, nil), nil
}

// decode parses data into a Job and turns encoding/json's errors into ones
// that say what kind of file this is.
func decode(data []byte) (*result.Job, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file, not an ioswarm result file")
	}
	var job result.Job
	err := json.Unmarshal(data, &job)
	var syntax *json.SyntaxError
	var shape *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax) && syntax.Error() == "unexpected end of JSON input":
		return nil, fmt.Errorf("truncated JSON at byte %d", len(data))
	case errors.As(err, &syntax):
		return nil, fmt.Errorf("not valid JSON: %s at byte %d", syntax.Error(), syntax.Offset)
	case errors.As(err, &shape) && shape.Field == "":
		return nil, fmt.Errorf("not an ioswarm result file: the top level is a JSON %s, not an object", shape.Value)
	case errors.As(err, &shape) && strings.HasPrefix(shape.Value, "number "):
		return nil, fmt.Errorf("not an ioswarm result file: field %s holds %s, which does not fit its type (%s)",
			shape.Field, shape.Value, shape.Type)
	case errors.As(err, &shape):
		return nil, fmt.Errorf("not an ioswarm result file: field %s holds a JSON %s where %s belongs",
			shape.Field, shape.Value, jsonKind(shape.Type))
	case err != nil:
		return nil, fmt.Errorf("not an ioswarm result file: %w", err)
	}
	if job.Version == "" {
		return nil, errors.New("not an ioswarm result file (no ioswarm_version)")
	}
	return &job, nil
}

// validate checks what JSON decoding cannot: every histogram must be one
// this build can recompute percentiles from.
func validate(job *result.Job) error {
	for i := range job.Phases {
		p := &job.Phases[i]
		if p.Histogram == nil {
			continue
		}
		if _, err := histogram.FromSparse(p.Histogram); err != nil {
			return fmt.Errorf("phase %s iteration %d: latency histogram: %w", p.Name, p.Iteration, err)
		}
	}
	return nil
}

// jsonKind names, with its article, the JSON type a Go type is decoded from, which is what a
// person looking at the file can check.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	default:
		return "a number"
	}
}
