package rankproto

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// scriptFiles are the node-side scripts, one statement per line (see the
// package comment for how a file becomes the one line that is sent).
//
//go:embed sh/*.sh sh/lib/*.sh
var scriptFiles embed.FS

// includePrefix starts a line that stands for another file's text.
const includePrefix = ". ./"

// script is the one-line text of the script file name (relative to sh/):
// its lines trimmed and joined by single spaces, comment lines left out,
// and each `. ./FILE.sh REST` line replaced by FILE's text and REST.
// swap gives the text to use instead of a file, by name.
func script(name string, swap map[string]string) string {
	if s, ok := swap[name]; ok {
		return s
	}
	data, err := scriptFiles.ReadFile(path.Join("sh", name))
	if err != nil {
		panic(fmt.Sprintf("rankproto: embedded script %s: %v", name, err)) // a build without sh/ is a bug
	}
	var words []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, includePrefix):
			file, rest, _ := strings.Cut(strings.TrimPrefix(line, includePrefix), ".sh")
			inner := path.Join(path.Dir(name), file+".sh")
			line = script(inner, swap) + rest
		}
		words = append(words, line)
	}
	return strings.Join(words, " ")
}

// CopyTimeout bounds one copy of the binary to a node; a partial copy
// older than this is abandoned (sweep.sh's -mmin says it in minutes).
const CopyTimeout = 10 * time.Minute

// CacheDir is where a binary of the given SHA-256 lives, relative to the
// node's home directory. The directory is private to the user (0700): a
// binary others could replace would run with the user's rights.
func CacheDir(hash string) string { return path.Join(".cache", "ioswarm", hash) }

// CachedExe is the cached copy of build hash in the node's home.
func CachedExe(home, hash string) string { return path.Join(home, CacheDir(hash), "ioswarm") }

// ProbeCommand is the command line of probe.sh for paths ("" is the
// cached copy of build hash); unames are the machine names a stamp may be
// written on (nil: any). Only a probe that looks at the cached copy makes
// the cache's tag: with --remote-bin nothing is written in the user's home.
func ProbeCommand(hash string, unames, paths []string) string {
	return ShScript(probeText(paths), append([]string{hash, strings.Join(unames, " ")}, paths...)...)
}

// noTag stands for cachetag.sh where the probe looks at no cached copy.
var noTag = map[string]string{"lib/cachetag.sh": "echo -;"}

// probeText is probe.sh, with its tag line for paths.
func probeText(paths []string) string {
	if slices.Contains(paths, "") {
		return script("probe.sh", nil)
	}
	return script("probe.sh", noTag)
}

// QuickCommand is the command line of quick.sh for `ioswarm rank args`
// from the cached copy of build hash, with the probe of that copy as its
// fallback.
func QuickCommand(hash string, unames, args []string) string {
	words := []string{"sh", "-c", QuickText(), hash, hash, strings.Join(unames, " "), "", "--", "rank"}
	return ShLine(append(words, args...)...)
}

// QuickText is quick.sh whole.
func QuickText() string { return script("quick.sh", nil) }

// CopyCommand is the command line of copy.sh for build hash.
func CopyCommand(hash string) string { return ShScript(CopyText(), hash) }

// CopyText is copy.sh whole.
func CopyText() string { return script("copy.sh", nil) }

// FetchCommand is the command line of fetch.sh from host:port, the
// stream given limit (whole seconds, at least one) and cut at size bytes;
// with serve, the node then serves its copy (serve-copy) in the same
// session.
func FetchCommand(hash, host string, port int, serve bool, limit time.Duration, size int64) string {
	mode := "-"
	if serve {
		mode = "serve"
	}
	return ShScript(FetchText(), hash, host, strconv.Itoa(port), mode, seconds(limit), strconv.FormatInt(size, 10))
}

// FetchText is fetch.sh whole.
func FetchText() string { return script("fetch.sh", nil) }

// seconds is a stream's limit as the scripts take it: whole seconds, at
// least one.
func seconds(limit time.Duration) string { return strconv.Itoa(max(int(limit/time.Second), 1)) }

// RankCommand is the command line that starts `exe rank args...` on a
// node and announces its PID on the first line of standard output.
func RankCommand(exe string, args []string) string {
	return ShLine(append([]string{"sh", "-c", StartText(), exe, "rank"}, args...)...)
}

// StartText is start.sh whole.
func StartText() string { return script("start.sh", nil) }

// ExecCommand runs `exe args...` to completion.
func ExecCommand(exe string, args []string) string {
	return ShLine(append([]string{exe}, args...)...)
}

// KillCommand kills a rank by PID: the fallback for sshd that ignores
// signal requests (OpenSSH does for root logins: "session signalling
// requires privilege separation"). Where the login shell exec'd its way
// to the rank, the rank leads the session's process group, and the whole
// group goes; elsewhere the rank alone.
func KillCommand(pid int) string {
	return fmt.Sprintf("kill -KILL -- -%d 2>/dev/null || kill -KILL %d", pid, pid)
}

// ScriptText is the one-line text of the embedded script file name,
// relative to sh/ ("probe.sh", "lib/fid.sh"): what a command line runs.
func ScriptText(name string) string { return script(name, nil) }
