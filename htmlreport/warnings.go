package htmlreport

import (
	"fmt"
	"strings"
)

// warnings gathers a study's warnings in the order they first came, each
// text once with every point (section and thread count) that carried it.
type warnings struct {
	texts []string
	at    map[string][]warnedAt
}

type warnedAt struct {
	section string
	threads int
}

func (ws *warnings) add(text, section string, threads int) {
	if ws.at == nil {
		ws.at = map[string][]warnedAt{}
	}
	if _, ok := ws.at[text]; !ok {
		ws.texts = append(ws.texts, text)
	}
	for _, a := range ws.at[text] {
		if a == (warnedAt{section, threads}) {
			return // a point's iterations or phases said it twice
		}
	}
	ws.at[text] = append(ws.at[text], warnedAt{section, threads})
}

func (ws *warnings) list() []Warning {
	var out []Warning
	for _, text := range ws.texts {
		out = append(out, Warning{Where: where(ws.at[text]), Text: text})
	}
	return out
}

// where says which points carried a warning: per section in the order
// they came, "seq, 1, 2 and 4 threads; random, 2 threads" (a sweep's
// points have no section: "1 and 2 threads").
func where(at []warnedAt) string {
	var sections []string
	counts := map[string][]string{}
	for _, a := range at {
		if _, ok := counts[a.section]; !ok {
			sections = append(sections, a.section)
		}
		counts[a.section] = append(counts[a.section], fmt.Sprint(a.threads))
	}
	var parts []string
	for _, sec := range sections {
		c := counts[sec]
		n := strings.Join(c, ", ")
		if len(c) > 1 {
			n = strings.Join(c[:len(c)-1], ", ") + " and " + c[len(c)-1]
		}
		unit := " threads"
		if len(c) == 1 && c[0] == "1" {
			unit = " thread"
		}
		if sec != "" {
			n = sec + ", " + n
		}
		parts = append(parts, n+unit)
	}
	return strings.Join(parts, "; ")
}
