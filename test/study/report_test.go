package study

import (
	"bufio"
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// report writes one HTML file from two studies, beside the first by
// default, and names it on stdout.
func TestReportWritesOneFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"gen1.json", "gen2.json"} {
		data, err := os.ReadFile(fixture(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := run(t, "report", filepath.Join(dir, "gen2.json"), filepath.Join(dir, "gen1.json"),
		"--title", "GPFS acceptance")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "gen2.html")
	if strings.TrimSpace(stdout) != "report: "+out {
		t.Errorf("stdout %q", stdout)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>GPFS acceptance</title>", "gen1 against gen2", "Peak and sustained"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the report lacks %q", want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files in the directory, want the two studies and the report alone", len(entries))
	}
	_, stderr, code = run(t, "report", filepath.Join(dir, "gen2.json"), "--format", "pdf")
	if code != 2 || !strings.Contains(stderr, "--format") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("bad format: exit %d, %q", code, stderr)
	}
}

// chromium finds a headless browser, or skips.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: scripts/test.sh installs Debian's chromium as root")
	return ""
}

// browse runs a headless browser on the page with the given extra
// arguments: no network beyond the page, a fresh profile, its net log
// and its console on stderr.
func browse(t *testing.T, exe, page string, args ...string) (netlog, stderr string) {
	t.Helper()
	dir := t.TempDir()
	netlog = filepath.Join(dir, "net.json")
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--log-net-log=" + netlog, "--net-log-capture-mode=Everything",
		"--enable-logging=stderr", "--v=0", "--hide-scrollbars",
		// The browser's own background requests (sign-in, updates) would
		// leave the machine: no name resolves, and every request goes to
		// a proxy on a closed local port.
		"--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9"}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append(append(base, args...), "file://"+page)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return netlog, errb.String()
}

// The report as a person sees it, in a real browser: nothing fetched
// from the network, no console error, every chart drawn (the phases'
// colours are on the screen), and printing gives a PDF of several pages.
func TestReportInBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if _, stderr, code := run(t, "report", fixture("gen2.json"), fixture("gen1.json"), "-o", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}

	shot := filepath.Join(dir, "shot.png")
	netlog, stderr := browse(t, exe, page, "--window-size=1200,5200", "--screenshot="+shot)
	if m := regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught|ERR_|Failed to load).*$`).FindAllString(stderr, -1); len(m) > 0 {
		t.Errorf("the browser said:\n%s", strings.Join(m, "\n"))
	}
	checkNoNetwork(t, netlog)
	checkChartsOnScreen(t, shot)

	pdf := filepath.Join(dir, "report.pdf")
	browse(t, exe, page, "--no-pdf-header-footer", "--print-to-pdf="+pdf)
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	pages := len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(data, -1))
	if !bytes.HasPrefix(data, []byte("%PDF")) || pages < 2 {
		t.Errorf("print to PDF: %d bytes, %d pages", len(data), pages)
	}
}

// checkNoNetwork reads the browser's net log: no request the page made
// (any with an origin as its initiator: a file:// page's is "null") went
// to anything but the page itself or data inside it. The browser's own
// background requests ("not an origin") are no part of the page; the
// flags browse passes keep them on this machine.
func checkNoNetwork(t *testing.T, netlog string) {
	t.Helper()
	f, err := os.Open(netlog)
	if err != nil {
		t.Fatalf("no net log: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	initiator := regexp.MustCompile(`"initiator":"([^"]*)"`)
	url := regexp.MustCompile(`"url":"([^"]*)"`)
	for sc.Scan() {
		line := sc.Text()
		i, u := initiator.FindStringSubmatch(line), url.FindStringSubmatch(line)
		if i == nil || u == nil || i[1] == "not an origin" {
			continue
		}
		if !strings.HasPrefix(u[1], "file://") && !strings.HasPrefix(u[1], "data:") {
			t.Errorf("the page asked for %s", u[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the net log: %v", err)
	}
}

// checkChartsOnScreen looks for each chart's ink in the screenshot: the
// write line's blue and the read line's orange must both be drawn, and
// the page must not be blank.
func checkChartsOnScreen(t *testing.T, shot string) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	near := func(c color.Color, r, g, b uint8) bool {
		cr, cg, cb, _ := c.RGBA()
		d := func(x uint32, y uint8) int { return int(x>>8) - int(y) }
		return abs(d(cr, r)) < 24 && abs(d(cg, g)) < 24 && abs(d(cb, b)) < 24
	}
	var blue, orange, green, ink int
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 2 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 2 {
			c := img.At(x, y)
			switch {
			case near(c, 0x1f, 0x5f, 0xbf):
				blue++
			case near(c, 0xe0, 0x7b, 0x10):
				orange++
			case near(c, 0x2a, 0x9d, 0x4a):
				green++
			}
			if !near(c, 0xff, 0xff, 0xff) {
				ink++
			}
		}
	}
	if blue < 50 || orange < 50 || green < 50 {
		t.Errorf("chart lines on screen: %d blue (write), %d orange (read), %d green (randread) samples", blue, orange, green)
	}
	if total := (bnd.Dx() / 2) * (bnd.Dy() / 2); ink < total/100 {
		t.Errorf("the page is nearly blank: %d of %d samples inked", ink, total)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
