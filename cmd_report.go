package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/htmlreport"
	"ioswarm/internal/usage"
	"ioswarm/report"
	"ioswarm/study"
)

// reportCmdOptions are report's flags and arguments.
type reportCmdOptions struct {
	invocation
	Output, Format, Title string
	Expect                string
}

func reportCommand() *cli.Command {
	var o reportCmdOptions
	return command(&cli.Command{
		Name:      "report",
		Usage:     "write one self-contained HTML (or Markdown) report of studies: charts, peaks, warnings, comparison",
		ArgsUsage: "STUDY.json [OTHER.json...]",
		Description: "The first file is the study the report is about; each other file is compared with it point\n" +
			"by point. The HTML holds everything inline (charts as SVG, no network, nothing beside it) and\n" +
			"prints to a clean PDF from a browser; --format markdown writes a wiki page with the charts as\n" +
			"SVG and PNG files beside it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.Output, Category: catOutput, Usage: "the report's file (default: the first study's name with .html or .md)"},
			&cli.StringFlag{Name: "format", Value: "html", Destination: &o.Format, Category: catOutput, Usage: "html or markdown"},
			&cli.StringFlag{Name: "title", Destination: &o.Title, Category: catOutput, Usage: "the report's title (default: the studies' names)"},
			expectFlag(&o.Expect),
		},
	}, reportExamples, func(c *cli.Context) error {
		o.invocation = invocationFrom(c)
		return runReport(o)
	})
}

const reportExamples = `   ioswarm report gpfs-new.json                       # gpfs-new.html
   ioswarm report gpfs-new.json gpfs-old.json --title "GPFS acceptance, December 2026"
   ioswarm report gpfs-new.json --format markdown -o wiki/gpfs.md
   ioswarm report gpfs-new.json --expect 'write>=20GB/s@64,read>=23GB/s@32,randread>=500kIOPS@256'`

// runReport is `ioswarm report`.
func runReport(o reportCmdOptions) error {
	if len(o.args) == 0 {
		return usage.Errorf("report: name at least one study file (ioswarm report study.json)")
	}
	ext := map[string]string{"html": ".html", "markdown": ".md"}[o.Format]
	if ext == "" {
		return flagError("format", o.Format, fmt.Errorf("want html or markdown"))
	}
	expect, err := parseExpect(o.Expect)
	if err != nil {
		return err
	}
	files, err := loadSections(o.args)
	if err != nil {
		return err
	}
	ss, pairs, judged := reportStudies(files)
	title := o.Title
	if title == "" && pairs != nil {
		title = "Storage characterisation: " + strings.Join(fileNames(files), " vs ")
	}
	out := o.Output
	if out == "" {
		out = strings.TrimSuffix(o.args[0], filepath.Ext(o.args[0])) + ext
	}
	if dir := filepath.Dir(out); !isDir(dir) {
		return usage.Errorf("report: --output %q: the directory %q does not exist", report.Clean(out), report.Clean(dir))
	}
	doc, err := htmlreport.Build(ss, htmlreport.Options{Title: title, Expect: expect, Generated: time.Now(), Version: fullVersion(),
		Pairs: pairs, Judged: judged})
	if err != nil {
		return usage.Wrap(err)
	}
	if o.Format == "markdown" {
		charts, err := doc.WriteChartFiles(ss, strings.TrimSuffix(out, filepath.Ext(out)))
		if err != nil {
			return err
		}
		err = writeFile("output", out, func(w io.Writer) error { return doc.WriteMarkdown(w, charts, filepath.Dir(out)) })
		if err != nil {
			return err
		}
	} else {
		if err := doc.Charts(ss); err != nil {
			return err
		}
		if err := writeFile("output", out, doc.WriteHTML); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.stdout, "report: %s\n", out)
	return judge(o.stdout, judged, expect)
}

// fileNames names each file by its study (or sweep), not its sections.
func fileNames(files [][]*study.Sweep) []string {
	var out []string
	for _, secs := range files {
		s := secs[0]
		out = append(out, strings.TrimSuffix(s.Name(), " "+s.Section))
	}
	return out
}

// reportStudies lays the files out for the report: every section of
// every file as a study of its own, the pairs to compare (a study's
// sections with the same sections of each other file; nil without a
// study: the first file with each other) and what --expect judges (all
// of the first file's sections).
func reportStudies(files [][]*study.Sweep) ([]*study.Sweep, [][2]int, *study.Sweep) {
	var ss []*study.Sweep
	first := make([]int, len(files)) // where each file's sections start in ss
	anyStudy := false
	for i, secs := range files {
		first[i] = len(ss)
		ss = append(ss, secs...)
		anyStudy = anyStudy || isStudyFile(secs)
	}
	judged := files[0][0]
	if isStudyFile(files[0]) {
		judged = (&study.Study{Label: fileNames(files)[0], Sections: files[0]}).Flatten()
	}
	if !anyStudy {
		return ss, nil, judged
	}
	pairs := [][2]int{}
	for i := 1; i < len(files); i++ {
		for _, p := range sectionPairs(files[0], files[i]) {
			pairs = append(pairs, [2]int{first[0] + slices.Index(files[0], p[0]), first[i] + slices.Index(files[i], p[1])})
		}
	}
	return ss, pairs, judged
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
