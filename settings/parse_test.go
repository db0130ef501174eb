package settings

import (
	"encoding/json"
	"slices"
	"testing"

	"ioswarm/internal/usage"
)

// Each parse takes exactly its flag's words and names the flag, the value
// and the words allowed otherwise, in the texts users have always seen.
func TestParseWords(t *testing.T) {
	for _, c := range []struct {
		parse func(string) (string, error)
		good  []string
		bad   string
		err   string
	}{
		{wrap(ParseEngine), []string{"sync", "io_uring"}, "uring", `--engine "uring": must be sync or io_uring`},
		{wrap(ParseDropMode), []string{"auto", "on", "off"}, "yes", `--drop-caches "yes": must be auto, on or off`},
		{wrap(ParseLayout), []string{"per-thread", "shared"}, "n-1", `--layout "n-1": must be per-thread or shared`},
		{wrap(ParsePattern), []string{"segmented", "strided"}, "round", `--pattern "round": must be segmented or strided`},
		{wrap(ParseRandScope), []string{"segment", "file"}, "all", `--rand-scope "all": must be segment or file`},
		{wrap(ParseRandOrder), []string{"shuffle", "uniform"}, "random", `--rand-order "random": must be shuffle or uniform`},
		{wrap(ParseMDDir), []string{"per-thread", "shared"}, "flat", `--md-dir "flat": must be per-thread or shared`},
	} {
		for _, g := range c.good {
			if got, err := c.parse(g); err != nil || got != g {
				t.Errorf("%q: got %q, %v", g, got, err)
			}
		}
		for _, bad := range []string{c.bad, "", "SYNC"} {
			_, err := c.parse(bad)
			if !usage.Is(err) {
				t.Errorf("%q: got %v, want a usage error", bad, err)
			}
		}
		if _, err := c.parse(c.bad); err == nil || err.Error() != c.err {
			t.Errorf("%q: got %v, want %s", c.bad, err, c.err)
		}
	}
}

// wrap turns a typed parse into one of strings, so one table holds all.
func wrap[T ~string](parse func(string) (T, error)) func(string) (string, error) {
	return func(s string) (string, error) {
		v, err := parse(s)
		return string(v), err
	}
}

func TestParsePhases(t *testing.T) {
	got, err := ParsePhases(" write, randread ,,read")
	if err != nil || !slices.Equal(got, PhaseList{Write, RandRead, Read}) {
		t.Errorf("got %v, %v", got, err)
	}
	if got.String() != "write,randread,read" {
		t.Errorf("String: got %q", got)
	}
	for text, want := range map[string]string{
		"":                "--phases: no phase given (known: write, rewrite, read, reread, randwrite, randread, mdcreate, mdstat, mdread, mddelete)",
		"write,writes":    `--phases: unknown phase "writes" (known: write, rewrite, read, reread, randwrite, randread, mdcreate, mdstat, mdread, mddelete)`,
		"read,write,read": `--phases: phase "read" given twice`,
	} {
		if _, err := ParsePhases(text); !usage.Is(err) || err.Error() != want {
			t.Errorf("%q: got %v, want %s", text, err, want)
		}
	}
}

// A setting travels and is stored as its word: the types change no JSON.
func TestSettingsJSON(t *testing.T) {
	v := struct {
		E Engine
		D DropMode
		M DropMethod
		P []Phase
		O RandOrder
	}{IOUring, DropOff, DropCaches, []Phase{Write, MDStat}, Uniform}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"E":"io_uring","D":"off","M":"drop_caches","P":["write","mdstat"],"O":"uniform"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	// A word this build does not know still loads (a newer file).
	if err := json.Unmarshal([]byte(`{"E":"spdk","P":["mdrename"]}`), &v); err != nil || v.E != "spdk" || v.P[0] != "mdrename" {
		t.Errorf("got %+v, %v", v, err)
	}
}
