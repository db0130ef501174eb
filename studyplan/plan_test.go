package studyplan

import (
	"strings"
	"testing"
)

const example = `# the seeds' characterisation
[study]
dir = /gpfs/scratch   # shared by every section
iterations = 3

[seq]
threads = 1..512
total = auto

; random 4 KiB IOPS
[random]
threads = 1..256
total = "1TiB"
rand-time = 2m
`

func TestParseExample(t *testing.T) {
	p, err := Parse(strings.NewReader(example), "s.plan")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 2 || p.Sections[0].Name != "seq" || p.Sections[1].Name != "random" {
		t.Fatalf("sections %+v", p.Sections)
	}
	if e, ok := p.Shared.Get("dir"); !ok || e.Value != "/gpfs/scratch" || e.Line != 3 {
		t.Errorf("dir: %+v (the comment after it is not part of the value)", e)
	}
	if e, _ := p.Sections[1].Get("total"); e.Value != "1TiB" {
		t.Errorf("quoted total: %q", e.Value)
	}
	var merged []string
	for _, e := range p.Merged(p.Sections[0]) {
		merged = append(merged, e.Key+"="+e.Value)
	}
	if got := strings.Join(merged, " "); got != "dir=/gpfs/scratch iterations=3 threads=1..512 total=auto" {
		t.Errorf("merged seq: %s", got)
	}
	want := "[study]\ndir = /gpfs/scratch\niterations = 3\n[seq]\nthreads = 1..512\ntotal = auto\n" +
		"[random]\nrand-time = 2m\nthreads = 1..256\ntotal = 1TiB\n"
	if c := p.Canonical(); c != want {
		t.Errorf("canonical:\n%s\nwant:\n%s", c, want)
	}
	again, err := Parse(strings.NewReader(p.Canonical()), "c")
	if err != nil || again.Canonical() != p.Canonical() {
		t.Errorf("the canonical form does not read back as itself: %v", err)
	}
}

// Every error is one line naming the file and the line at fault.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"threads = 4\n", "p:1: \"threads = 4\" before any [section]"},
		{"[seq]\nthreads 4\n", "p:2: \"threads 4\": want key = value"},
		{"[seq]\nthreads = 1\n[sequential]\n", "p:3: [sequential]: not a section"},
		{"[seq]\nthreads = 1\n\n[seq]\n", "p:4: [seq] again (first on line 1)"},
		{"[study]\n[study]\n", "p:2: [study] again"},
		{"[seq]\nthreads = 1\nthreads = 2\n", "p:3: threads given twice in [seq] (first on line 2)"},
		{"[seq\n", "p:1: \"[seq\": a section line is [name]"},
		{"[seq]\nrand time = 2m\n", "p:2: \"rand time = 2m\": a key is one word"},
		{"# nothing\n[study]\ndir = /x\n", "p: no section to run"},
	} {
		_, err := Parse(strings.NewReader(c.text), "p")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", c.text, err, c.want)
		}
	}
}

// Check names the line of a key the caller does not know, and a section
// without threads.
func TestCheck(t *testing.T) {
	p, err := Parse(strings.NewReader("[study]\ndir = /x\n[seq]\nthreads = 1\nbogus = 2\n"), "p")
	if err != nil {
		t.Fatal(err)
	}
	known := func(section, key string) error {
		if key == "bogus" {
			return errTest
		}
		return nil
	}
	if err := p.Check(known); err == nil || err.Error() != "p:5: bogus: not known" {
		t.Errorf("unknown key: %v", err)
	}
	p, _ = Parse(strings.NewReader("[seq]\nthreads = 1\n[random]\ntotal = 1GiB\n"), "p")
	if err := p.Check(known); err == nil || !strings.Contains(err.Error(), "p:3: [random] has no threads") {
		t.Errorf("no threads: %v", err)
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("not known")

// Diff names each changed key by section, and changed sections.
func TestDiff(t *testing.T) {
	a := "[study]\ndir = /x\n[seq]\nthreads = 1..4\ntotal = 8MiB\n[random]\nthreads = 1\n"
	b := "[study]\ndir = /x\ndirect = true\n[seq]\nthreads = 1..4\ntotal = 4MiB\n"
	got := strings.Join(Diff(a, b), "; ")
	for _, want := range []string{"sections: saved seq,random, now seq", "study.direct: saved (not set), now true", "seq.total: saved 8MiB, now 4MiB"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff %q lacks %q", got, want)
		}
	}
	if d := Diff(a, a); len(d) != 0 {
		t.Errorf("the same plan differs: %v", d)
	}
}

// A quoted value holds what stands between its quotes, a " #" or " ;"
// included, and the canonical text writes it so that it reads back the
// same: a rerun with a changed "run #2" label must not pass for the same
// plan.
func TestQuotedValuesKeepTheirCommentMarks(t *testing.T) {
	text := "[seq]\nthreads = 1\nlabel = \"run #2\" # the second\ndir = ' /x ; y'\nphases = \"write\"\n"
	p, err := Parse(strings.NewReader(text), "q.plan")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"label": "run #2", "dir": " /x ; y", "phases": "write"} {
		if e, _ := p.Sections[0].Get(key); e.Value != want {
			t.Errorf("%s = %q, want %q", key, e.Value, want)
		}
	}
	c := p.Canonical()
	if !strings.Contains(c, "label = \"run #2\"\n") || !strings.Contains(c, "dir = \" /x ; y\"\n") || !strings.Contains(c, "phases = write\n") {
		t.Errorf("canonical:\n%s", c)
	}
	changed := strings.Replace(c, "run #2", "run #3", 1)
	if d := Diff(c, changed); len(d) != 1 || d[0] != "seq.label: saved run #2, now run #3" {
		t.Errorf("diff of the labels: %q", d)
	}
}

// Whatever parses, its canonical text parses to the same plan: the text a
// study's file records is the plan it ran.
func FuzzCanonicalReadsBack(f *testing.F) {
	f.Add(example)
	f.Add("[seq]\nthreads = 1\nlabel = \"run #2\" # c\ndir = ' a ; b'\n")
	f.Add("[random]\nthreads=1..4\nx = 'it''s'\ny = \"\"\nz = '\"q\" #'\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(strings.NewReader(text), "f.plan")
		if err != nil {
			return
		}
		c := p.Canonical()
		q, err := Parse(strings.NewReader(c), "canonical")
		if err != nil {
			t.Fatalf("canonical text does not parse: %v\n%s", err, c)
		}
		if got := q.Canonical(); got != c {
			t.Fatalf("canonical text reads back otherwise:\n%s\nthen\n%s", c, got)
		}
		for i, s := range append([]Section{p.Shared}, p.Sections...) {
			got := q.Shared
			if i > 0 {
				got = q.Sections[i-1]
			}
			for _, e := range s.Entries {
				if g, _ := got.Get(e.Key); g.Value != e.Value {
					t.Fatalf("[%s] %s = %q reads back as %q", s.Name, e.Key, e.Value, g.Value)
				}
			}
		}
		if d := Diff(c, c); len(d) != 0 {
			t.Fatalf("a plan differs from itself: %q", d)
		}
	})
}
