package hostlist

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// fuzzLimit keeps each fuzz run small; the full MaxHosts bound is exercised by
// the count check (which allocates nothing) and by the unit tests.
const fuzzLimit = 1 << 12

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"node[01-16,20]", "gpu[1-2]-ib", "rack[1-2]-node[1-3]", "a,b,c", "n[0-99999999999]",
		"node[1-3", "a,,b", "x[1-2].y[1-2]-z[1-2]", " n[08-100] , m ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		_, total, fullErr := parseList(list, MaxHosts)
		hosts, err := expandLimit(list, fuzzLimit)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Expand(%q) error %v is not a *SyntaxError", list, err)
			}
			if fullErr == nil && total <= fuzzLimit {
				t.Fatalf("Expand(%q) fails (%v) although it names %d hosts", list, err, total)
			}
			return
		}
		if fullErr != nil || total != len(hosts) {
			t.Fatalf("Expand(%q) gives %d hosts but the count says %d, %v", list, len(hosts), total, fullErr)
		}
		checkHosts(t, list, hosts)
		back, err := Expand(Compress(hosts))
		if err != nil || !slices.Equal(back, hosts) {
			t.Fatalf("Expand(%q) = %q; Compress gives %q, which expands to %q, %v", list, hosts, Compress(hosts), back, err)
		}
	})
}

func checkHosts(t *testing.T, list string, hosts []string) {
	t.Helper()
	if len(hosts) == 0 {
		t.Fatalf("Expand(%q) succeeded with no hosts", list)
	}
	for _, h := range hosts {
		if h == "" || len(h) > maxHostLen || strings.ContainsAny(h, "[], \t\r\n#@:") {
			t.Fatalf("Expand(%q) produced host %q", list, h)
		}
	}
}

func checkEntries(t *testing.T, what string, entries []Entry, iozone bool) {
	t.Helper()
	if len(entries) == 0 || len(entries) > fuzzLimit {
		t.Fatalf("%s: %d entries without an error", what, len(entries))
	}
	for _, e := range entries {
		if e.Host == "" || e.Port < 0 || e.Port > 65535 || strings.ContainsAny(e.User, "@: \t") {
			t.Fatalf("%s: bad entry %+v", what, e)
		}
		if iozone && (e.Dir == "" || e.Exe == "") {
			t.Fatalf("%s: IOzone entry without workdir or exe: %+v", what, e)
		}
		if !iozone && e.Exe != "" {
			t.Fatalf("%s: host file entry with an exe: %+v", what, e)
		}
	}
}

func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		"node1\n", "node[1-4] dir=/gpfs/x\n", "# c\n\nroot@n1:22 # t\n", "n1 dri=/x\n",
		"[fe80::1]:22\n::1\n", "a,b\r\nc dir=/x#y\n", "\uFEFFn1\n", "n[0-99999999]\n", "n1, n2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		entries, err := parseFile(strings.NewReader(data), "f", fuzzLimit)
		if err != nil {
			oneLine(t, "ParseFile", data, err)
			if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "reading f") {
				t.Fatalf("ParseFile(%q) error %q does not name the file", data, err)
			}
			return
		}
		checkEntries(t, "ParseFile("+data+")", entries, false)
	})
}

func FuzzParseIOzone(f *testing.F) {
	for _, s := range []string{
		"n1 /w /bin/iozone\n", "n1 /w /x\nn1 /w /x\n", "# c\nn1 /w /x # t\n", "n1 /w\n",
		"n1 /w /x /y\n", "root@n[1-3]:22 /w /x\n", "\n\n\n", "::1 /w /x\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		entries, err := parseIOzone(strings.NewReader(data), "f", fuzzLimit)
		if err != nil {
			oneLine(t, "ParseIOzone", data, err)
			if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "reading f") {
				t.Fatalf("ParseIOzone(%q) error %q does not name the file", data, err)
			}
			return
		}
		checkEntries(t, "ParseIOzone("+data+")", entries, true)
		if isIOzone([]byte(data)) != allAbsolute(entries) {
			t.Fatalf("isIOzone(%q) disagrees with the parsed paths %+v", data, entries)
		}
	})
}

// allAbsolute reports whether every entry has absolute workdir and exe paths,
// which is what makes Load treat a valid IOzone file as one.
func allAbsolute(entries []Entry) bool {
	for _, e := range entries {
		if !strings.HasPrefix(e.Dir, "/") || !strings.HasPrefix(e.Exe, "/") {
			return false
		}
	}
	return true
}
