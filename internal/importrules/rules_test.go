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
	"acceptance":     {"study", "wire"},
	"barrier":        {"clock"},
	"binserve":       {},
	"chart":          {"figures", "result", "settings", "study", "units", "wire"},
	"clientcache":    {"mounts", "units"},
	"clock":          {},
	"coordinator":    {"barrier", "clientcache", "clock", "figures", "histogram", "hostlist", "internal/usage", "launcher", "nodefacts", "rankproto", "resplan", "result", "selfbin", "settings", "units", "wire"},
	"figures":        {"histogram", "result", "wire"},
	"histogram":      {"result"},
	"htmlreport":     {"acceptance", "chart", "settings", "study", "units", "wire"},
	"hostlist":       {"internal/usage"},
	"internal/usage": {},
	"iozone":         {"figures", "internal/usage", "result", "settings", "units"},
	"launcher":       {"clock", "hostlist", "internal/usage", "mounts", "rankproto", "selfbin", "units"},
	"mounts":         {},
	"nodefacts":      {"clientcache", "mounts", "units"},
	"preflight":      {"clock", "launcher", "mounts", "nodefacts", "units", "uring", "wire"},
	"progress":       {"units"},
	"rankproto":      {},
	"rank":           {"barrier", "clientcache", "clock", "histogram", "internal/usage", "mounts", "nodefacts", "result", "settings", "units", "uring", "wire"},
	"report":         {"clientcache", "figures", "histogram", "nodefacts", "result", "settings", "units", "wire"},
	"resplan":        {"histogram", "hostlist", "nodefacts", "settings", "units"},
	"result":         {"settings"},
	"selfbin":        {},
	"settings":       {"internal/usage"},
	"study":          {"figures", "internal/usage", "report", "result", "settings", "units", "wire"},
	"sweep":          {"coordinator", "internal/usage", "result", "study", "units"},
	"studyplan":      {},
	"units":          {},
	"uring":          {},
	"wire":           {"clientcache", "nodefacts", "result", "settings"},

	// Packages below the top level.
	"launcher/sshlaunch": {"binserve", "launcher", "rankproto"},
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

// offline are the packages behind the commands that only read result
// files (plot, compare): they must not link the engine, not even through
// another package, so none of engine may be among their dependencies.
var (
	offline = []string{"chart", "study", "report", "figures"}
	engine  = []string{"coordinator", "rank", "barrier", "launcher", "sweep", "uring"}
)

// deps lists the project packages dir's package depends on, directly or
// not (non-test files).
func deps(t *testing.T, dir string) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(string)
	walk = func(d string) {
		p, err := build.Default.ImportDir(filepath.Join(root(t), d), 0)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		for _, imp := range p.Imports {
			if name, ours := strings.CutPrefix(imp, "ioswarm/"); ours && !seen[name] {
				seen[name] = true
				walk(name)
			}
		}
	}
	walk(dir)
	var out []string
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func TestOfflineToolsLinkNoEngine(t *testing.T) {
	for _, pkg := range offline {
		d := deps(t, pkg)
		for _, e := range engine {
			if slices.Contains(d, e) {
				t.Errorf("%s depends on %s (all its dependencies: %v)", pkg, e, d)
			}
		}
	}
	// The check has teeth: the sweep runner links the engine.
	if d := deps(t, "sweep"); !slices.Contains(d, "launcher") || !slices.Contains(d, "coordinator") {
		t.Errorf("sweep's dependencies %v: want coordinator and launcher among them", d)
	}
}

// The checker has teeth: held to barrier's rule, the coordinator (which
// imports the launcher and the messages) is reported.
func TestImportRulesCatchAViolation(t *testing.T) {
	bad := violations(t, "coordinator", allowed["barrier"])
	if !slices.Contains(bad, "ioswarm/wire") || !slices.Contains(bad, "ioswarm/launcher") {
		t.Errorf("coordinator under barrier's rule: %v, want wire and launcher reported", bad)
	}
}
