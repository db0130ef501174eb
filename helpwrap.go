package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"ioswarm/report"
)

// wrapHelpAt makes the CLI's help printer keep to width columns: the
// help is rendered as the CLI renders it, then every longer line is
// rewrapped by wrapHelp. The CLI offers no per-app printer, only this
// package variable; main sets it once, before anything prints.
func wrapHelpAt(width int) {
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		var b bytes.Buffer
		cli.HelpPrinterCustom(&b, templ, data, nil)
		io.WriteString(w, wrapHelp(b.String(), width))
	}
}

// usageColumn finds where a help line's text column starts: after the
// label (a command name, a flag and its aliases) and the run of spaces
// that aligns it.
var usageColumn = regexp.MustCompile(`^(\s*\S+(?: \S+)*?\s{2,})\S`)

// exampleComment splits an example line into its command and its
// trailing "# comment".
var exampleComment = regexp.MustCompile(`^(.*?\S)\s{2,}# (.*)$`)

// wrapHelp rewraps the lines of help text wider than width. A line with
// a label and a text column continues under the column; an example's
// comment moves to a line of its own above the command, and a command
// still too wide continues after a backslash, so it still pastes into a
// shell as one command.
func wrapHelp(text string, width int) string {
	var out []string
	examples := false
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			examples = line == "EXAMPLES:"
		}
		switch {
		case utf8.RuneCountInString(line) <= width:
			out = append(out, line)
		case examples:
			out = append(out, wrapExample(line, width)...)
		case usageColumn.MatchString(line):
			out = append(out, wrapColumn(line, width))
		default:
			// Prose broken by hand at another width: the lines that
			// follow at its indent are the same paragraph.
			indent := indentOf(line)
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && indentOf(lines[i+1]) == indent &&
				!usageColumn.MatchString(lines[i+1]) {
				i++
				line += " " + strings.TrimSpace(lines[i])
			}
			out = append(out, report.Wrap(line, width, indent, indent))
		}
	}
	return strings.Join(out, "\n")
}

// indentOf is the run of spaces a line starts with.
func indentOf(line string) string { return line[:len(line)-len(strings.TrimLeft(line, " "))] }

// wrapColumn wraps a line whose continuation goes under its text column,
// or two spaces in when that column lies past the middle of the line.
func wrapColumn(line string, width int) string {
	indent := len(indentOf(line))
	col := indent + 2
	if m := usageColumn.FindStringSubmatch(line); m != nil && utf8.RuneCountInString(m[1]) < width/2 {
		col = len(m[1])
	}
	if col > len(line) {
		col = indent
	}
	label, rest := line[:col], line[col:]
	if strings.TrimSpace(label) == "" {
		label = strings.Repeat(" ", col)
	}
	hang := strings.Repeat(" ", utf8.RuneCountInString(label))
	return report.Wrap(rest, width, label, hang)
}

// wrapExample puts an example's comment on its own line above the
// command and breaks a command still too wide with backslashes.
func wrapExample(line string, width int) []string {
	indent := indentOf(line)
	command := strings.TrimSpace(line)
	var out []string
	if m := exampleComment.FindStringSubmatch(command); m != nil {
		command = m[1]
		out = append(out, strings.Split(report.Wrap(m[2], width, indent+"# ", indent+"# "), "\n")...)
	}
	lines := strings.Split(report.Wrap(command, width-2, indent, indent+"    "), "\n")
	for i := range lines[:len(lines)-1] {
		lines[i] += " \\"
	}
	return append(out, lines...)
}
