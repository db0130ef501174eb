package importrules

import (
	"go/build"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// allowed lists, for each package with a rule in its doc comment, the
// project packages it may import (its non-test files): a package not
// listed here has no rule. Keep this table and the doc comments alike.
var allowed = map[string][]string{
	"barrier":        {"clock"},
	"chart":          {"result", "study", "units"},
	"clock":          {},
	"figures":        {"histogram", "result"},
	"histogram":      {"result"},
	"internal/usage": {},
	"hostlist":       {},
	"iozone":         {"result", "units"},
	"launcher":       {"hostlist", "mounts", "units", "clock"},
	"mounts":         {},
	"nodefacts":      {"mounts", "units"},
	"preflight":      {"clock", "launcher", "mounts", "nodefacts", "units", "uring"},
	"progress":       {"units"},
	"rank":           {"barrier", "clock", "histogram", "mounts", "nodefacts", "result", "uring"},
	"report":         {"figures", "histogram", "nodefacts", "result", "units"},
	"result":         {},
	"study":          {"coordinator", "figures", "internal/usage", "report", "result", "units"},
	"units":          {},
	"uring":          {},
}

func root(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the source tree")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// violations lists the project packages dir's package imports that ok
// does not allow.
func violations(t *testing.T, dir string, ok []string) []string {
	t.Helper()
	p, err := build.Default.ImportDir(filepath.Join(root(t), dir), 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var bad []string
	for _, imp := range p.Imports {
		if name, ours := strings.CutPrefix(imp, "ioswarm/"); ours && !slices.Contains(ok, name) {
			bad = append(bad, imp)
		}
	}
	return bad
}

func TestImportRules(t *testing.T) {
	for pkg, ok := range allowed {
		for _, imp := range violations(t, pkg, ok) {
			t.Errorf("%s imports %s, which its doc comment's rule does not allow (allowed: %v)", pkg, imp, ok)
		}
	}
}

// The checker has teeth: held to barrier's rule, the coordinator (which
// imports the launcher and the rank engine) is reported.
func TestImportRulesCatchAViolation(t *testing.T) {
	bad := violations(t, "coordinator", allowed["barrier"])
	if !slices.Contains(bad, "ioswarm/rank") || !slices.Contains(bad, "ioswarm/launcher") {
		t.Errorf("coordinator under barrier's rule: %v, want rank and launcher reported", bad)
	}
}
