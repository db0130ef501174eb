package sshlaunch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/rankproto"
)

// placeBuild copies data into home's cache with the copy script, as a
// first run does, and returns the cached copy's path.
func placeBuild(t *testing.T, home string, data []byte) string {
	t.Helper()
	out, errOut, err := runUnderSh(t, home, rankproto.CopyCommand(sha256Hex(data)), data)
	if err != nil || strings.TrimSpace(out) != "placed" {
		t.Fatalf("copy: %v, out %q, stderr %q", err, out, errOut)
	}
	return filepath.Join(home, rankproto.CacheDir(sha256Hex(data)), "ioswarm")
}

// probeCached runs the probe on the cached copy only and returns its
// answer about it.
func probeCached(t *testing.T, home, hash string) string {
	t.Helper()
	out, errOut, err := runUnderSh(t, home, rankproto.ProbeCommand(hash, nil, []string{""}), nil)
	if err != nil {
		t.Fatalf("probe: %v: %s", err, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("probe printed %q", out)
	}
	return lines[3]
}

// quickAnswer runs the quick start of the cached copy as `rank --job j`
// and returns what it printed.
func quickAnswer(t *testing.T, home, hash string) string {
	t.Helper()
	out, errOut, err := runUnderSh(t, home, rankproto.QuickCommand(hash, nil, []string{"--job", "j"}), nil)
	if err != nil {
		t.Fatalf("quick start: %v: %s", err, errOut)
	}
	return out
}

// forgeStamp writes a stamp that vouches for whatever file is at exe now,
// as someone able to write the cache could.
func forgeStamp(t *testing.T, exe, hash string) {
	t.Helper()
	fid, _, err := runUnderSh(t, t.TempDir(), rankproto.ShScript(rankproto.ScriptText("lib/fid.sh")+` fid "$1"`, exe), nil)
	if err != nil {
		t.Fatal(err)
	}
	name, _ := os.ReadFile("/proc/sys/kernel/hostname")
	stamp := exe + ".verified." + strings.TrimSpace(string(name))
	if err := os.WriteFile(stamp, []byte(hash+" "+fid), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A copy the stamp vouches for is trusted only while the cache
// directories, the copy and the stamp are the user's alone: a planted
// program with a forged stamp in a directory others may write is
// reported unsafe, naming the path, and never reported verified. The
// quick start, which runs a stamped copy without the probe, runs none of
// them: it probes instead, in the same session.
func TestProbeRefusesCacheOthersCanWrite(t *testing.T) {
	data := []byte("#!/bin/sh\necho genuine \"$@\"\n")
	hash := sha256Hex(data)
	cases := []struct {
		name string
		harm func(t *testing.T, exe string) string // returns the path to be named
	}{
		{"build directory writable by others", func(t *testing.T, exe string) string {
			os.Chmod(filepath.Dir(exe), 0o777)
			return filepath.Dir(exe)
		}},
		{"cache root writable by group", func(t *testing.T, exe string) string {
			root := filepath.Dir(filepath.Dir(exe))
			os.Chmod(root, 0o770)
			return root
		}},
		{"copy writable by others", func(t *testing.T, exe string) string {
			os.Chmod(exe, 0o707)
			return exe
		}},
		{"stamp writable by group", func(t *testing.T, exe string) string {
			stamps, _ := filepath.Glob(exe + ".verified.*")
			os.Chmod(stamps[0], 0o660)
			return stamps[0]
		}},
		{"copy replaced by a symbolic link", func(t *testing.T, exe string) string {
			other := filepath.Join(t.TempDir(), "planted")
			os.WriteFile(other, []byte("#!/bin/sh\necho planted\n"), 0o700)
			os.Remove(exe)
			os.Symlink(other, exe)
			return exe
		}},
		{"copy owned by another user", func(t *testing.T, exe string) string {
			if os.Getuid() != 0 {
				t.Skip("chown needs root")
			}
			os.Chown(exe, 65534, 65534)
			return exe
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			exe := placeBuild(t, home, data)
			if got := probeCached(t, home, hash); got != hash {
				t.Fatalf("fresh copy: probe says %q", got)
			}
			if out := quickAnswer(t, home, hash); !strings.HasPrefix(out, "start ") ||
				!strings.HasSuffix(out, " "+home+"\ngenuine rank --job j\n") {
				t.Fatalf("fresh copy: quick start printed %q; want start PID HOME, then the rank", out)
			}
			named := tc.harm(t, exe)
			forgeStamp(t, exe, hash) // keeps the stamp's mode
			quick := quickAnswer(t, home, hash)
			if lines := strings.Split(quick, "\n"); lines[0] != "probe" || len(lines) != 6 ||
				!strings.HasPrefix(lines[4], "unsafe ") || strings.Contains(quick, "genuine") || strings.Contains(quick, "planted") {
				t.Fatalf("quick start printed %q; want probe, then the probe's unsafe answer, and nothing run", quick)
			}
			got := probeCached(t, home, hash)
			if !strings.HasPrefix(got, "unsafe ") || !strings.HasSuffix(got, " "+named) {
				t.Fatalf("probe says %q; want unsafe, naming %s", got, named)
			}
			err := rankproto.UnsafeCacheError(got)
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, named) ||
				!strings.Contains(msg, "rm -rf") {
				t.Errorf("refusal %q: want one line naming the path and the fix", msg)
			}
			t.Logf("%s", err)
		})
	}
}

func hostname(t *testing.T) string {
	name, err := os.ReadFile("/proc/sys/kernel/hostname")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(name))
}

// The copy script refuses to write into a build directory others may
// write to, instead of placing a copy that is no safer than the directory.
func TestCopyScriptRefusesLooseDirectory(t *testing.T) {
	home := t.TempDir()
	data := []byte("#!/bin/sh\n")
	dir := filepath.Join(home, rankproto.CacheDir(sha256Hex(data)))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	out, errOut, err := runUnderSh(t, home, rankproto.CopyCommand(sha256Hex(data)), data)
	if err != nil || !strings.HasPrefix(out, "unsafe ") || !strings.Contains(out, " 777 d "+dir) {
		t.Fatalf("copy into a mode-777 directory: %v, out %q, stderr %q", err, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "ioswarm")); !os.IsNotExist(err) {
		t.Errorf("a copy was placed (stat: %v)", err)
	}
}

// Partial copies are named so that the next run can tell whose they are:
// this node's, from a copying shell that is gone, are removed at once;
// another node's (a home shared by a cluster) only once untouched for
// longer than a copy may take; so are the older versions' ".ioswarm.PID".
// The quick start, which forks nothing for it, removes this node's only.
// (Placing a copy leaves them to the probe that always precedes it.)
func TestScriptsSweepAbandonedPartialCopies(t *testing.T) {
	for _, script := range []string{"probe", "quick"} {
		t.Run(script, func(t *testing.T) {
			home := t.TempDir()
			data := []byte("#!/bin/sh\necho sweep\n")
			exe := placeBuild(t, home, data)
			dir := filepath.Dir(exe)
			other := filepath.Join(filepath.Dir(dir), sha256Hex([]byte("another build")))
			os.MkdirAll(other, 0o700)
			old := time.Now().Add(-rankproto.CopyTimeout - time.Minute)
			dead := deadPID(t)
			files := map[string]bool{ // name → kept
				fmt.Sprintf(".ioswarm.part.%s.%d", hostname(t), dead):        false,
				fmt.Sprintf(".ioswarm.part.%s.%d", hostname(t), os.Getpid()): true, // a live copy
				".ioswarm.part.node-elsewhere.4242":                          true,
				".ioswarm.part.node-elsewhere.4243":                          false, // old
				".ioswarm.31337":                                             false, // old, older version's
				".ioswarm.31338":                                             true,  // fresh
			}
			for name := range files {
				for _, d := range []string{dir, other} {
					p := filepath.Join(d, name)
					os.WriteFile(p, []byte("partial"), 0o600)
					if name == ".ioswarm.part.node-elsewhere.4243" || name == ".ioswarm.31337" {
						os.Chtimes(p, old, old)
					}
				}
			}
			switch script {
			case "probe":
				probeCached(t, home, sha256Hex(data))
			case "quick":
				if out := quickAnswer(t, home, sha256Hex(data)); !strings.HasPrefix(out, "start ") {
					t.Fatalf("quick start printed %q", out)
				}
			}
			for name, kept := range files {
				if script == "quick" && !strings.HasPrefix(name, ".ioswarm.part."+hostname(t)+".") {
					kept = true
				}
				for _, d := range []string{dir, other} {
					_, err := os.Stat(filepath.Join(d, name))
					if kept != (err == nil) {
						t.Errorf("%s in %s: kept %v, want %v", name, filepath.Base(d)[:8], err == nil, kept)
					}
				}
			}
		})
	}
}

// deadPID returns a PID no process has now.
func deadPID(t *testing.T) int {
	for pid := 4_000_000; pid > 3_000_000; pid -= 7 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			return pid
		}
	}
	t.Fatal("no free PID found")
	return 0
}

func TestUnsafeCacheWords(t *testing.T) {
	owned := rankproto.UnsafeCacheError("unsafe 65534 1000 700 d /home/u/.cache/ioswarm/ab12").Error()
	loose := rankproto.UnsafeCacheError("unsafe 1000 1000 777 d /home/u/.cache/ioswarm/ab 12").Error()
	link := rankproto.UnsafeCacheError("unsafe 1000 1000 777 l /home/u/.cache/ioswarm/ab12/ioswarm").Error()
	if !strings.Contains(link, "ioswarm/ab12/ioswarm is a symbolic link") || strings.Contains(link, "chmod") {
		t.Errorf("%q", link)
	}
	for _, want := range []string{"/home/u/.cache/ioswarm/ab12 is owned by uid 65534, not by you (uid 1000)",
		"remove it (rm -rf /home/u/.cache/ioswarm/ab12)"} {
		if !strings.Contains(owned, want) {
			t.Errorf("%q lacks %q", owned, want)
		}
	}
	for _, want := range []string{"has mode 777: group or others may write to it",
		"chmod go-w '/home/u/.cache/ioswarm/ab 12'"} {
		if !strings.Contains(loose, want) {
			t.Errorf("%q lacks %q", loose, want)
		}
	}
}
