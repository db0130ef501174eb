package sshlaunch

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ioswarm/rankproto"
)

// runUnderSh runs a command line under sh with HOME set, as a node would.
func runUnderSh(t *testing.T, home, line string, stdin []byte) (string, string, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.Stdin = strings.NewReader(string(stdin))
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestCopyScriptPlacesVerifiedPrivateCopy(t *testing.T) {
	home := t.TempDir()
	data := []byte("#!/bin/sh\necho hi\n")
	hash := sha256Hex(data)
	out, errOut, err := runUnderSh(t, home, rankproto.CopyCommand(hash), data)
	if err != nil || strings.TrimSpace(out) != "placed" {
		t.Fatalf("copy: %v, out %q, stderr %q", err, out, errOut)
	}
	final := filepath.Join(home, rankproto.CacheDir(hash), "ioswarm")
	got, err := os.ReadFile(final)
	if err != nil || string(got) != string(data) {
		t.Fatalf("placed file %q, %v", got, err)
	}
	for _, p := range []string{final, filepath.Dir(final), filepath.Dir(filepath.Dir(final))} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", p, st.Mode().Perm(), err)
		}
	}
	assertNoTemp(t, filepath.Dir(final))
}

// A copy damaged on the way never takes the final name, and its temporary
// file is removed.
func TestCopyScriptRefusesWrongHash(t *testing.T) {
	home := t.TempDir()
	want := sha256Hex([]byte("the real binary"))
	_, errOut, err := runUnderSh(t, home, rankproto.CopyCommand(want), []byte("something else"))
	if err == nil {
		t.Fatal("copy of the wrong bytes succeeded")
	}
	if !strings.Contains(errOut, sha256Hex([]byte("something else"))) {
		t.Errorf("stderr %q does not name the copy's hash", errOut)
	}
	dir := filepath.Join(home, rankproto.CacheDir(want))
	if _, err := os.Stat(filepath.Join(dir, "ioswarm")); !os.IsNotExist(err) {
		t.Errorf("a wrong copy took the final name (stat: %v)", err)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".ioswarm.") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func TestProbeScriptReportsArchHomeAndHashes(t *testing.T) {
	home := t.TempDir()
	data := []byte("#!/bin/sh\n")
	hash := sha256Hex(data)
	if _, _, err := runUnderSh(t, home, rankproto.CopyCommand(hash), data); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "not executable")
	os.WriteFile(plain, data, 0o644)
	out, errOut, err := runUnderSh(t, home, rankproto.ProbeCommand(hash, nil, []string{"", "/no/such/ioswarm", plain}), nil)
	if err != nil {
		t.Fatalf("probe: %v: %s", err, errOut)
	}
	uname, _ := exec.Command("uname", "-m").Output()
	lines := strings.Split(out, "\n")
	if len(lines) != 7 || !rankproto.ValidTag(lines[2]) {
		t.Fatalf("probe printed %q; want 6 lines, the third a cache tag", out)
	}
	want := strings.Join([]string{strings.TrimSpace(string(uname)), home, lines[2], hash, "absent", "absent"}, "\n") + "\n"
	if out != want {
		t.Errorf("probe printed\n%q\nwant\n%q", out, want)
	}
	name, _ := os.ReadFile("/proc/sys/kernel/hostname")
	stamp := filepath.Join(home, rankproto.CacheDir(hash), "ioswarm.verified."+strings.TrimSpace(string(name)))
	if got, err := os.ReadFile(stamp); err != nil || !strings.HasPrefix(string(got), hash+" ") {
		t.Errorf("this node's stamp %s: %q, %v", stamp, got, err)
	}
	// A stamp that names the copy's current identity is believed without
	// reading the copy: with other bytes in the copy than the hash says,
	// the probe still answers the stamp's hash. (That is what spares the
	// hashing; any write to the copy moves its change time and voids it.)
	cached := filepath.Join(home, rankproto.CacheDir(hash), "ioswarm")
	if err := os.WriteFile(cached, []byte("other bytes"), 0o700); err != nil {
		t.Fatal(err)
	}
	fid, err := exec.Command("stat", "-c", "%d %i %s %y %z", cached).Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stamp, []byte(hash+" "+string(fid)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runUnderSh(t, home, rankproto.ProbeCommand(hash, nil, []string{""}), nil)
	if lines := strings.Split(out, "\n"); err != nil || len(lines) < 4 || lines[3] != hash {
		t.Errorf("with a matching stamp the probe printed %q (%v: %s); want the stamp's hash, unread", out, err, errOut)
	}
}

// A probe writes a stamp only on a node of the build's architecture: the
// quick start runs a stamped copy without asking the node's machine, and
// nodes of two architectures may share a home.
func TestProbeStampsOnlyOnTheBuildsArchitecture(t *testing.T) {
	home := t.TempDir()
	data := []byte("#!/bin/sh\n")
	hash := sha256Hex(data)
	exe := placeBuild(t, home, data)
	stamp := exe + ".verified." + hostname(t)
	for _, tc := range []struct {
		unames []string
		stamps bool
	}{{[]string{"pdp11", "vax"}, false}, {[]string{"pdp11", thisUname(t)}, true}, {nil, true}} {
		os.Remove(stamp)
		out, errOut, err := runUnderSh(t, home, rankproto.ProbeCommand(hash, tc.unames, []string{""}), nil)
		if lines := strings.Split(out, "\n"); err != nil || len(lines) < 4 || lines[3] != hash {
			t.Fatalf("unames %q: probe printed %q (%v: %s)", tc.unames, out, err, errOut)
		}
		if _, err := os.Stat(stamp); (err == nil) != tc.stamps {
			t.Errorf("unames %q on a %s node: stamp written %v, want %v", tc.unames, thisUname(t), err == nil, tc.stamps)
		}
	}
}

// Probes that look at one cache directory at the same moment, as nodes
// sharing a home do, all report the one tag it keeps; another directory
// has another tag. The tag file is private, and a directory that cannot
// hold one is reported as "-".
func TestCacheTagOnePerDirectory(t *testing.T) {
	shared := t.TempDir()
	tags := make([]string, 6)
	var wg sync.WaitGroup
	for i := range tags {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, errOut, err := runUnderSh(t, shared, rankproto.ShScript(rankproto.ScriptText("lib/cachetag.sh")), nil)
			if err != nil {
				t.Errorf("tag: %v: %s", err, errOut)
			}
			tags[i] = strings.TrimSpace(out)
		}()
	}
	wg.Wait()
	for _, tag := range tags {
		if !rankproto.ValidTag(tag) || tag != tags[0] {
			t.Fatalf("tags of one directory: %q", tags)
		}
	}
	if st, err := os.Stat(filepath.Join(shared, ".cache", "ioswarm", "id")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("tag file: %v, %v; want mode 0600", st, err)
	}
	other, _, _ := runUnderSh(t, t.TempDir(), rankproto.ShScript(rankproto.ScriptText("lib/cachetag.sh")), nil)
	if other = strings.TrimSpace(other); !rankproto.ValidTag(other) || other == tags[0] {
		t.Errorf("another directory's tag %q (shared one %q)", other, tags[0])
	}
	readOnly := t.TempDir()
	os.Chmod(readOnly, 0o500)
	defer os.Chmod(readOnly, 0o700)
	if os.Getuid() != 0 { // root writes anywhere
		if out, _, _ := runUnderSh(t, readOnly, rankproto.ShScript(rankproto.ScriptText("lib/cachetag.sh")), nil); strings.TrimSpace(out) != "-" {
			t.Errorf("a home that cannot hold a tag printed %q, want -", out)
		}
	}
}

// Placing a build prunes other builds unused for over 30 days and nothing
// else: not a recently used build, not the new one, not a directory that
// is not named like a build.
func TestCopyScriptPrunesStaleBuilds(t *testing.T) {
	home := t.TempDir()
	cache := filepath.Join(home, ".cache", "ioswarm")
	old := time.Now().Add(-40 * 24 * time.Hour)
	build := func(name string, used time.Time) string {
		dir := filepath.Join(cache, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "ioswarm")
		if err := os.WriteFile(exe, []byte("old build"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(exe, used, used); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := build(sha256Hex([]byte("stale")), old)
	recent := build(sha256Hex([]byte("recent")), time.Now().Add(-2*24*time.Hour))
	notBuild := build("notes", old)

	data := []byte("#!/bin/sh\necho new\n")
	out, errOut, err := runUnderSh(t, home, rankproto.CopyCommand(sha256Hex(data)), data)
	if err != nil || strings.TrimSpace(out) != "placed" {
		t.Fatalf("copy: %v, out %q, stderr %q", err, out, errOut)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("build unused for 40 days kept (stat: %v)", err)
	}
	for _, dir := range []string{recent, notBuild, filepath.Join(cache, sha256Hex(data))} {
		if _, err := os.Stat(filepath.Join(dir, "ioswarm")); err != nil {
			t.Errorf("pruned what it must keep: %v", err)
		}
	}
}

// A probe of preinstalled binaries only (--remote-bin) writes nothing in
// the home directory: no cache directory, no tag.
func TestProbeOfPreinstalledWritesNothing(t *testing.T) {
	home := t.TempDir()
	out, errOut, err := runUnderSh(t, home, rankproto.ProbeCommand(sha256Hex([]byte("x")), nil, []string{"/no/such/ioswarm"}), nil)
	if err != nil {
		t.Fatalf("probe: %v: %s", err, errOut)
	}
	if lines := strings.Split(out, "\n"); len(lines) != 5 || lines[2] != "-" || lines[3] != "absent" {
		t.Errorf("probe printed %q", out)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Errorf("the probe wrote %v in the home directory", ents)
	}
}
