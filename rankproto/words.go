package rankproto

import (
	"path"
	"strconv"
	"strings"
	"time"
)

// The words of a held quick.sh session (see the package comment).
const (
	// Go has the held session start the rank from the copy in place.
	Go = "go\n"
	// Probe has it probe the cached copy again; it is also quick.sh's
	// first line when it probed instead of starting the rank.
	Probe = "probe"
	// Placed is copy.sh's and fetch.sh's answer for a copy in place.
	Placed = "placed"
	// NoTools is fetch.sh's answer on a node without bash or timeout.
	NoTools = "notools"
)

// MaxHeldLines bounds what a session's standard error (or a fetch's
// other lines) may hold in memory while the launcher waits for an answer.
const MaxHeldLines = 64

// FetchRequest is the held session's "fetch" line and the token line
// after it: place the copy streamed from host:port within limit, cut at
// size bytes.
func FetchRequest(host string, port int, limit time.Duration, size int64, token string) string {
	return "fetch " + host + " " + strconv.Itoa(port) + " " + seconds(limit) + " " +
		strconv.FormatInt(size, 10) + "\n" + token + "\n"
}

// ParseFetched reads heldfetch's last line, "fetched STATUS", and
// returns STATUS; ok is false for any other line.
func ParseFetched(line string) (status string, ok bool) {
	return strings.CutPrefix(line, "fetched ")
}

// IsFetchAnswer says whether a line a held fetch printed is its answer
// rather than one of its errors.
func IsFetchAnswer(line string) bool {
	return line == Placed || line == NoTools || IsUnsafe(line)
}

// ParseStart parses quick.sh's "start PID HOME".
func ParseStart(s string) (pid int, home string, ok bool) {
	f := strings.SplitN(s, " ", 3)
	if len(f) != 3 || f[0] != "start" || !path.IsAbs(f[2]) {
		return 0, "", false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 1 {
		return 0, "", false
	}
	return pid, f[2], true
}

// The words a rank reads on its input after the launch lines.
const (
	wordServe   = "serve"
	wordUnserve = "unserve"
)

// Unserve tells a serving rank to stop.
const Unserve = wordUnserve + "\n"

// ServeRequest asks a rank to serve its copy with token.
func ServeRequest(token string) string { return wordServe + " " + token + "\n" }

// RankRequest is one line a rank read after the launch lines: serve
// (Token set), unserve, or neither (ignored).
type RankRequest struct {
	Serve, Unserve bool
	Token          string
}

// ParseRankRequest reads one line of a rank's input after the launch
// lines; anything but serve and unserve is neither.
func ParseRankRequest(line string) RankRequest {
	word, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch word {
	case wordServe:
		return RankRequest{Serve: true, Token: arg}
	case wordUnserve:
		return RankRequest{Unserve: true}
	}
	return RankRequest{}
}

// Serving is a copy server's answer: the port it listens on, 0 where it
// could not listen.
func Serving(port int) string { return "serving " + strconv.Itoa(port) + "\n" }

// ParseServing reads "serving PORT"; ok only for a positive port.
func ParseServing(line string) (port int, ok bool) {
	rest, found := strings.CutPrefix(line, "serving ")
	port, err := strconv.Atoi(rest)
	if !found || err != nil || port <= 0 {
		return 0, false
	}
	return port, true
}

// ServeAnswerWait bounds the wait for a rank's "serving PORT": it comes
// as soon as the rank has started and read its input (before it hashes
// its image), well within this on a loaded node; a rank slower than that
// serves no one.
const ServeAnswerWait = 10 * time.Second
