package jsoncontract

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ioswarm/internal/golden"
	"ioswarm/iozone"
	"ioswarm/preflight"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/study"
)

const listFile = "fields.txt"

// The files users' scripts read, each by the type encoding/json writes
// it from. An iozone result file is the job's object with the iozone
// member added (iozone.Result.WriteJSON).
// Where the others hold a job's result it is listed once, under result,
// and named where it is held ("sweep.points[] = result").
func contract() []string {
	job := reflect.TypeFor[result.Job]()
	seen := map[reflect.Type]string{job: "result"}
	var out []string
	out = append(out, fieldPaths("result", job, nil)...)
	out = append(out, fieldPaths("result.iozone", reflect.TypeFor[iozone.Result](), seen)...)
	out = append(out, fieldPaths("sweep", reflect.TypeFor[study.Sweep](), seen)...)
	out = append(out, fieldPaths("study", reflect.TypeFor[study.Study](), seen)...)
	out = append(out, fieldPaths("hosts[]", reflect.TypeFor[preflight.Result](), seen)...)
	for _, col := range report.CSVHeader() {
		out = append(out, "csv "+col)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A field a file had may not go: users' scripts read it by name. A new
// field must be recorded (go test -update here), so that from then on it
// is held too.
func TestNoFieldUsersReadIsRenamedOrDropped(t *testing.T) {
	golden.Held(t, listFile, contract(),
		"a field users' scripts read was renamed or dropped (DESIGN §9: add fields, never rename or drop one)",
		"record it with go test -update in internal/jsoncontract, so that it is held from now on")
}

// The walk itself: a renamed tag, a field left out with "-", and a field
// whose type marshals itself are what it must see as such.
func TestFieldPathsFollowEncodingJSON(t *testing.T) {
	type inner struct {
		A int `json:"a"`
	}
	type Embedded struct {
		E int `json:"e"`
	}
	type doc struct {
		Embedded
		Named   inner            `json:"named"`
		Ptr     *inner           `json:"ptr,omitempty"`
		List    []inner          `json:"list"`
		ByKey   map[string]inner `json:"by_key"`
		Skipped int              `json:"-"`
		Plain   int
		hidden  int
		Self    *doc            `json:"self"`
		Custom  json.RawMessage `json:"custom"`
		Text    textValue       `json:"text"`
	}
	got := fieldPaths("x", reflect.TypeFor[doc](), map[reflect.Type]string{reflect.TypeFor[inner](): "inner"})
	want := []string{"x.Plain", "x.by_key", "x.by_key{} = inner", "x.custom", "x.e", "x.list", "x.list[] = inner",
		"x.named", "x.named = inner", "x.ptr", "x.ptr = inner", "x.self", "x.text"}
	if !slices.Equal(got, want) {
		t.Errorf("paths:\n got %q\nwant %q", got, want)
	}
	_ = doc{}.hidden
}

type textValue struct{ V int }

func (textValue) MarshalText() ([]byte, error) { return nil, nil }

// fieldPaths lists the names encoding/json gives t's fields, each as a
// path from root ("result.phases[].threads[].cpu_ns"): [] for the items of
// a slice, {} for a map's values. A type that marshals itself is a leaf,
// a type met again inside itself is not walked twice, and a type listed
// elsewhere (refs) is named, not walked.
func fieldPaths(root string, t reflect.Type, refs map[reflect.Type]string) []string {
	var out []string
	w := walker{refs: refs, inPath: map[reflect.Type]bool{}, out: &out}
	w.walk(root, t)
	slices.Sort(out)
	return out
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func marshalsItself(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

type walker struct {
	refs   map[reflect.Type]string
	inPath map[reflect.Type]bool
	out    *[]string
}

func (w walker) walk(path string, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if marshalsItself(t) || w.inPath[t] {
		return
	}
	if ref, ok := w.refs[t]; ok {
		*w.out = append(*w.out, path+" = "+ref)
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 {
			w.walk(path+"[]", t.Elem())
		}
	case reflect.Map:
		w.walk(path+"{}", t.Elem())
	case reflect.Struct:
		w.inPath[t] = true
		defer delete(w.inPath, t)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				w.walk(path, ft) // its fields are promoted
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			*w.out = append(*w.out, path+"."+name)
			w.walk(path+"."+name, f.Type)
		}
	}
}
