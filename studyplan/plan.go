package studyplan

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// Study is the name of the section whose keys every other section shares.
const Study = "study"

// Kinds are the sections a study may run, in the order a flag-made plan
// runs them.
var Kinds = []string{"seq", "random", "shared", "metadata"}

// maxLines bounds a plan file: a person's plan is a few dozen lines, and
// anything past this is not a plan.
const maxLines = 10000

// Entry is one `key = value` line.
type Entry struct {
	Key, Value string
	Line       int // 1-based; 0 for an entry that came from a flag
}

// Section is one [name] and its entries, in file order.
type Section struct {
	Name    string
	Line    int
	Entries []Entry
}

// Plan is a parsed plan: the shared [study] entries and the sections to
// run, in order.
type Plan struct {
	Source   string // the file's name, for messages ("" for flags)
	Shared   Section
	Sections []Section
}

// Load reads and parses the plan file at path.
func Load(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a plan; name is the file's name in errors.
func Parse(r io.Reader, name string) (*Plan, error) {
	p := &Plan{Source: name, Shared: Section{Name: Study}}
	var cur *Section
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		if n > maxLines {
			return nil, fmt.Errorf("%s: more than %d lines: not a study plan", name, maxLines)
		}
		// A value's comment is the value's to find (a quoted value may
		// hold a " #"); a line's own is dropped here.
		line := strings.TrimSpace(sc.Text())
		if stripComment(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "[") {
			sec, err := p.open(strings.TrimSpace(stripComment(line)), n)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			cur = sec
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: %q before any [section]: start with [study] or [seq]", name, n, line)
		}
		if err := cur.add(line, n); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, n+1, err)
	}
	if len(p.Sections) == 0 {
		return nil, fmt.Errorf("%s: no section to run: add [seq], [random], [shared] or [metadata] with its threads", name)
	}
	return p, nil
}

// stripComment drops a comment: a line starting with # or ;, or " #"
// and " ;" later in the line (a value such as a path may hold # itself).
func stripComment(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
		return ""
	}
	for _, mark := range []string{" #", "\t#", " ;", "\t;"} {
		if i := strings.Index(s, mark); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// open starts the section a "[name]" line names.
func (p *Plan) open(line string, n int) (*Section, error) {
	if !strings.HasSuffix(line, "]") {
		return nil, fmt.Errorf("%q: a section line is [name]", line)
	}
	name := strings.ToLower(strings.TrimSpace(line[1 : len(line)-1]))
	if name == Study {
		if p.Shared.Line != 0 {
			return nil, fmt.Errorf("[study] again (first on line %d)", p.Shared.Line)
		}
		p.Shared.Line = n
		return &p.Shared, nil
	}
	if !slices.Contains(Kinds, name) {
		return nil, fmt.Errorf("[%s]: not a section; want study, %s", name, strings.Join(Kinds, ", "))
	}
	for _, s := range p.Sections {
		if s.Name == name {
			return nil, fmt.Errorf("[%s] again (first on line %d)", name, s.Line)
		}
	}
	p.Sections = append(p.Sections, Section{Name: name, Line: n})
	return &p.Sections[len(p.Sections)-1], nil
}

// add reads one "key = value" line into s.
func (s *Section) add(line string, n int) error {
	key, raw, ok := strings.Cut(line, "=")
	if !ok || strings.TrimSpace(stripComment(key)) != strings.TrimSpace(key) {
		return fmt.Errorf("%q: want key = value", strings.TrimSpace(stripComment(line)))
	}
	key = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(key)), "--")
	value := readValue(raw)
	if key == "" || strings.ContainsAny(key, " \t") {
		return fmt.Errorf("%q: a key is one word, a flag of ioswarm run without --", strings.TrimSpace(stripComment(line)))
	}
	if prev, ok := s.Get(key); ok {
		return fmt.Errorf("%s given twice in [%s] (first on line %d)", key, s.Name, prev.Line)
	}
	s.Entries = append(s.Entries, Entry{Key: key, Value: value, Line: n})
	return nil
}

// readValue reads what follows a key's "=". A value written "like this"
// or 'like this' is what stands between the quotes, so it may hold a
// leading space, a " #" or a " ;": the quote that closes it is the first
// of its kind followed by nothing but a comment. Any other value ends at
// its comment.
func readValue(raw string) string {
	v := strings.TrimSpace(raw)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		for i := 1; i < len(v); i++ {
			if v[i] == v[0] && strings.TrimSpace(stripComment(" "+v[i+1:])) == "" {
				return v[1:i]
			}
		}
	}
	return strings.TrimSpace(stripComment(v))
}

// writeValue is v as a plan line holds it: as it stands where readValue
// reads it back so, else in whichever quotes do.
func writeValue(v string) string {
	if readValue(v) == v {
		return v
	}
	for _, q := range []string{`"`, `'`} {
		if readValue(q+v+q) == v {
			return q + v + q
		}
	}
	return v
}

// Get is the section's entry for key.
func (s *Section) Get(key string) (Entry, bool) {
	for _, e := range s.Entries {
		if e.Key == key {
			return e, true
		}
	}
	return Entry{}, false
}

// Set puts key = value into s, replacing an entry of that key (a flag
// given on the command line overrides the file).
func (s *Section) Set(key, value string) {
	for i := range s.Entries {
		if s.Entries[i].Key == key {
			s.Entries[i] = Entry{Key: key, Value: value}
			return
		}
	}
	s.Entries = append(s.Entries, Entry{Key: key, Value: value})
}

// Section is the plan's section of that name, or nil.
func (p *Plan) Section(name string) *Section {
	for i := range p.Sections {
		if p.Sections[i].Name == name {
			return &p.Sections[i]
		}
	}
	return nil
}

// Where names an entry's place for a message: "plan.txt:7" for a line of
// a file, the flag for an entry a flag set.
func (p *Plan) Where(e Entry) string {
	if e.Line == 0 || p.Source == "" {
		return "--" + e.Key
	}
	return fmt.Sprintf("%s:%d", p.Source, e.Line)
}

// Check refuses, naming its line, a key that known says the section
// cannot take, and a section without threads.
func (p *Plan) Check(known func(section, key string) error) error {
	for _, s := range append([]Section{p.Shared}, p.Sections...) {
		for _, e := range s.Entries {
			if err := known(s.Name, e.Key); err != nil {
				return fmt.Errorf("%s: %s: %w", p.Where(e), e.Key, err)
			}
		}
	}
	for _, s := range p.Sections {
		if _, ok := s.Get("threads"); !ok {
			where := fmt.Sprintf("%s:%d", p.Source, s.Line)
			if s.Line == 0 || p.Source == "" {
				where = "--" + s.Name
			}
			return fmt.Errorf("%s: [%s] has no threads (threads = 1..64, say)", where, s.Name)
		}
	}
	return nil
}

// Merged is a section's entries over the shared ones: what the section
// runs with, the section's own winning, keys sorted.
func (p *Plan) Merged(s Section) []Entry {
	byKey := map[string]Entry{}
	for _, e := range p.Shared.Entries {
		byKey[e.Key] = e
	}
	for _, e := range s.Entries {
		byKey[e.Key] = e
	}
	out := make([]Entry, 0, len(byKey))
	for _, e := range byKey {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Canonical is the plan as text in one fixed form (sections in run
// order, keys sorted, no comments): what a study's file records, so a
// rerun can tell whether it is the same plan.
func (p *Plan) Canonical() string {
	var b strings.Builder
	write := func(s Section) {
		fmt.Fprintf(&b, "[%s]\n", s.Name)
		es := slices.Clone(s.Entries)
		sort.Slice(es, func(i, j int) bool { return es[i].Key < es[j].Key })
		for _, e := range es {
			fmt.Fprintf(&b, "%s = %s\n", e.Key, writeValue(e.Value))
		}
	}
	if len(p.Shared.Entries) > 0 {
		write(p.Shared)
	}
	for _, s := range p.Sections {
		write(s)
	}
	return b.String()
}
