package launcher

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sshd hands the command of an exec request to the user's login shell as
// `$SHELL -c COMMAND`. Every command below is therefore one line of words,
// each quoted for a POSIX shell, and the work itself is done by an explicit
// `sh -c SCRIPT sh ARGS...`, so that a login shell of another family never
// interprets the scripts. The scripts are single lines because csh refuses
// a newline inside quotes.

// quoteSh quotes s as one word for a POSIX shell: inside single quotes
// nothing is special except the single quote itself, which is written as
// a closing quote, a backslash-escaped quote and an opening quote.
func quoteSh(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuote) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// needsQuote reports a character a shell might treat specially; the rest
// (letters, digits and a few marks) may appear bare, which keeps commands
// readable in sshd's logs.
func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("-_./:@%+,=", r)
}

// shLine joins words into one command line, each word quoted.
func shLine(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteSh(w)
	}
	return strings.Join(q, " ")
}

// shScript runs script with sh, its positional parameters being args
// ($0 is "sh").
func shScript(script string, args ...string) string {
	return shLine(append([]string{"sh", "-c", script, "sh"}, args...)...)
}

// startScript prints the shell's PID, which exec hands on to the rank, so
// that the rank can be killed by PID should sshd not deliver signals.
const startScript = `echo $$; exec "$0" "$@"`

// rankCommand is the command line that starts `exe rank args...` on a node
// and announces its PID on the first line of standard output.
func rankCommand(exe string, args []string) string {
	return shLine(append([]string{"sh", "-c", startScript, exe, "rank"}, args...)...)
}

// execCommand runs `exe args...` to completion.
func execCommand(exe string, args []string) string {
	return shLine(append([]string{exe}, args...)...)
}

// killCommand kills a rank by PID: the fallback for sshd that ignores
// signal requests (OpenSSH does for root logins: "session signalling
// requires privilege separation"). Where the login shell exec'd its way
// to the rank, the rank leads the session's process group, and the whole
// group goes; elsewhere the rank alone.
func killCommand(pid int) string {
	return fmt.Sprintf("kill -KILL -- -%d 2>/dev/null || kill -KILL %d", pid, pid)
}

// cacheDir is where a binary of the given SHA-256 lives, relative to the
// node's home directory. The directory is private to the user (0700): a
// binary others could replace would run with the user's rights.
func cacheDir(hash string) string { return path.Join(".cache", "ioswarm", hash) }

// cachedExe is the cached copy of build hash in the node's home.
func cachedExe(home, hash string) string { return path.Join(home, cacheDir(hash), "ioswarm") }

// shaFunc defines sha, which prints the SHA-256 of its input first on its
// line: openssl's where there is one, since it hashes about three times
// faster than coreutils' sha256sum (a node hashes the whole binary on
// every run), else sha256sum's. "nosha" is printed where neither exists.
const shaFunc = `sha() { if command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r; ` +
	`elif command -v sha256sum >/dev/null 2>&1; then sha256sum; else echo nosha; fi; }; `

// statFunc prints what identifies a file's current contents without reading
// them: device, inode, size, and modification and change times to the
// nanosecond. Any write, replacement or rename changes the change time,
// which no unprivileged program can set back.
const statFunc = `fid() { stat -c '%d %i %s %y %z' "$1" 2>/dev/null; }; `

// nodeName sets n to the node's host name without a fork. Stamps are kept
// per node: in a home directory the cluster shares, nodes see one file
// under different device numbers (NFS clients number their mounts each
// their own way), and one shared stamp would be rewritten by every node in
// turn, each finding the last one's stale.
const nodeName = `n=; read -r n 2>/dev/null </proc/sys/kernel/hostname; `

// cacheTag prints the tag of the user's cache directory: a random name
// kept in it, made by the first node to look (by hard link, so that of
// nodes racing on one shared directory exactly one tag wins). Nodes that
// print the same tag write into one directory, so one copy serves them
// all. "-" where the directory cannot hold a tag. Once the tag exists it
// is read without a fork. The random digits come from the kernel's
// random UUID (three of its groups, leaving out the version's), read by
// the shell: od and tr cost two programs where only od's fallback needs
// them.
const cacheTag = `c="$HOME/.cache/ioswarm"; [ -f "$c/id" ] || { umask 077; mkdir -p "$c" && k="$c/.id.$$" && ` +
	`{ t=; { read -r r </proc/sys/kernel/random/uuid; } 2>/dev/null && u=${r#*-} && t=${r%%-*}${u%%-*} && ` +
	`u=${u#*-} && u=${u#*-} && t=$t${u%%-*}; [ ${#t} = 16 ] || t=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n'); } && ` +
	`printf '%s\n' "$t" >"$k" && ln "$k" "$c/id"; rm -f "$k"; } 2>/dev/null; i=-; read -r i 2>/dev/null <"$c/id"; echo "${i:--}"; `

// privFunc defines priv, which prints "unsafe OWNER UID MODE TYPE PATH" for the
// first of its paths that is not owned by this user (UID) or that group or
// others may write, and nothing when all are private. A path that does
// not exist is skipped; a symbolic link is judged as itself (mode 777),
// so one planted in the cache is refused too. Anyone who can write to the
// cache could make the next run start their program as this user, with
// the job secret on its input.
// Ownership is checked by the shell ([ -O ]); only a path that fails it,
// or a link, costs id and find, which then have the last word (a test
// without -O fails every path, so it is slow, never lax). Every path the
// shell let through is this user's, so find's mode check prints the
// owner as the UID too.
const privFunc = `priv() { for o in "$@"; do z=; if [ -L "$o" ]; then z=1; elif [ -e "$o" ]; then [ -O "$o" ] || z=1; fi; ` +
	`if [ -n "$z" ]; then u=$(id -u); b=$(find "$o" -maxdepth 0 \( -not -user "$u" -o -perm /022 \) -printf "unsafe %U $u %m %y %p\n" 2>/dev/null); ` +
	`[ -n "$b" ] && { echo "$b"; return; }; fi; done; ` +
	`find "$@" -maxdepth 0 -perm /022 -printf "unsafe %U %U %m %y %p\n" -quit 2>/dev/null; }; `

// sweepFunc defines sweep, which removes from the cache directory $1 the
// partial copies (".ioswarm.*" beside a build) that no copy is writing:
// those this node made whose copying shell is gone, and any untouched for
// longer than copyTimeout (a copy still running past that has been
// cancelled by its launcher). A copy killed outright (SIGKILL, a node
// reset) runs no trap, so its partial file is left for the next run.
// find runs only where the shell's glob sees a partial copy at all.
var sweepFunc = sweepMineFunc + `sweep() { for o in "$1"/*/.ioswarm.*; do [ -e "$o" ] && { ` +
	`find "$1" -mindepth 2 -maxdepth 2 -type f -name '.ioswarm.*' -mmin +` +
	strconv.Itoa(int(copyTimeout/time.Minute)) + ` -exec rm -f {} + 2>/dev/null; break; }; done; sweepmine "$1"; }; `

// sweepMineFunc defines sweepmine, sweep's part that needs no fork: this
// node's partial copies whose copying shell is gone. The quick start runs
// it, so a warm node still clears what a killed copy left.
const sweepMineFunc = `sweepmine() { for o in "$1"/*/.ioswarm.part."$n".*; do [ -f "$o" ] && ` +
	`{ kill -0 "${o##*.}" 2>/dev/null || rm -f "$o"; }; done; }; `

// copyTimeout bounds one copy of the binary to a node; a partial copy
// older than this is abandoned.
const copyTimeout = 10 * time.Minute

// probeScript reports, one line each: the machine name (uname -m, read from
// /proc/sys/kernel/arch where the kernel has it, which saves a program), the home
// directory, the cache directory's tag, then for every path argument after
// the hash and the machine names whether the file is there and executable,
// and its SHA-256 ("absent", "nosha" when the node has no way to hash, else
// the digest). An empty path stands for the cached copy of this build,
// which is reported "unsafe ..." (privFunc) when the cache directories, the
// copy or its stamp are not private to the user. Hashing 16 MiB on every
// node at every start costs more than the SSH session itself, so after the
// cached copy has been hashed and found right, its fid is stamped beside
// it, per node; while the stamp still matches, the copy is reported
// verified without re-reading. (The rank still hashes its own running
// image and proves that hash to the coordinator: the stamp only spares
// this probe.) A stamp is written only on a node whose machine name is
// one of the build's ($2, space-separated; empty when the build is not
// checked), since quickScript starts a stamped copy without asking: nodes
// of two architectures may share a home. The stamp and the tag are all it
// ever writes; it removes abandoned partial copies (sweepFunc).
var probeScript = shaFunc + statFunc + nodeName + privFunc + sweepFunc + `umask 077; m=; { read -r m </proc/sys/kernel/arch; } 2>/dev/null || m=$(uname -m); printf '%s\n' "$m" "$HOME"; ` +
	probeTagSlot + `h=$1; a=$2; shift 2; ` +
	`for p in "$@"; do s=""; [ -n "$p" ] || { p="$HOME/.cache/ioswarm/$h/ioswarm"; s="$p.verified.$n"; sweep "$HOME/.cache/ioswarm"; }; ` +
	`if [ -f "$p" ] && [ -x "$p" ]; then ` +
	`if [ -n "$s" ]; then b=$(priv "$HOME/.cache/ioswarm" "${p%/*}" "$p" "$s"); [ -n "$b" ] && { echo "$b"; continue; }; fi; ` +
	`if [ -n "$s" ] && f=$(fid "$p") && { v=; read -r v <"$s" || :; } 2>/dev/null && [ "$v" = "$h $f" ]; then echo "$h"; continue; fi; ` +
	`r=$(sha <"$p") || exit 1; r=${r%% *}; echo "$r"; ` +
	`if [ -n "$s" ] && [ "$r" = "$h" ] && case " $a " in "  "|*" $m "*) :;; *) false;; esac && f=$(fid "$p"); then ` +
	`printf '%s %s\n' "$h" "$f" >"$s" 2>/dev/null; fi; ` +
	`else echo absent; fi; done`

// quickScript starts the rank from the cached copy of build $0 in the
// session that finds it, when the node stamped that copy (probeScript,
// copyScript) and nothing has touched it since: "start PID HOME", then
// the rank's own output. On a warm node that is the whole launch, one
// session with one fork (stat) before the rank, against a probe's
// session with a dozen forks and then the rank's. Its checks are the
// probe's, without forks: the cache directories, the copy and the stamp
// owned by the user ([ -O ]) and not writable by group or others (the
// modes' last two digits; a symbolic link's 777 fails too), and the
// stamp naming this build and the copy's fid. Anything else, a shell
// whose test lacks -O included, prints "probe" and runs probeScript in
// the same session instead. Its arguments are the probe's three, "--"
// and the rank's.
// The rank's input is written only after "start": the job secret never
// reaches a probe. Before it starts the rank, it removes the partial
// copies this node left whose copying shell is gone (sweepmine), as the
// probe would have.
//
// After a probe the session waits for a line on its input: "go" once the
// launcher has placed the copy (verified on arrival) or found it good,
// and it then starts the rank from the cached copy as a session of its
// own would (rankCommand), without the checks that stand in for that
// verification. Before "go" it may be told to fetch the copy itself
// (quickTail); anything else, or the input's end, ends the session. So a
// cold node that streams its copy costs one session, as a warm one does.
var quickScript = nodeName + sweepMineFunc + `q() { d="$HOME/.cache/ioswarm"; p="$d/$0/ioswarm"; s="$p.verified.$n"; ` +
	`v=; { read -r v <"$s" || :; } 2>/dev/null; ` +
	`for o in "$d" "$d/$0" "$s" "$p"; do [ -O "$o" ] || return 1; done; ` +
	`x=$(stat --printf '%a %d %i %s %y %z|' "$d" "$d/$0" "$s" "$p" 2>/dev/null) || return 1; ` +
	`while [ -n "$x" ]; do e=${x%%|*}; x=${x#*|}; case ${e%% *} in *[2367]?|*[2367]) return 1;; esac; f=${e#* }; done; ` +
	`[ "$v" = "$0 $f" ]; }; ` +
	`if q 2>/dev/null; then sweepmine "$d"; echo "start $$ $HOME"; shift 4; exec "$p" "$@"; fi; echo probe; pr() { `

// quickTail follows the probe in quickScript: the probe runs as a function
// of the probe's three arguments, keeping the rank's for after "go".
// Until then the session also takes "fetch HOST PORT SECONDS SIZE" (the token
// on the next line): it places the copy streamed from that server as a
// fetch session would (heldFetchScript), in a subshell, so that a fetch
// that fails leaves the session waiting, and answers "fetched STATUS"
// after the script's own answer and its errors (its standard error joins
// the output, so they arrive in order, before the status). "probe" probes
// the node again, as when the node's home is shared and another node has
// just placed the copy there. A cold node that streams its copy so
// costs one session, as a warm node does.
var quickTail = `; }; pr "$1" "$2" "$3"; fe() { ( set -- "$0" "$1" "$2" - "$3" "$4"; ` + heldFetchScript + ` ) }; ` +
	`while read -r w a b c e; do case $w in ` +
	`go) p="$HOME/.cache/ioswarm/$0/ioswarm"; echo "start $$ $HOME"; shift 4; exec "$p" "$@";; ` +
	`fetch) fe "$a" "$b" "$c" "$e" 2>&1; echo "fetched $?";; probe) pr "$1" "$2" "$3";; *) exit 0;; esac; done; exit 0`

// copyScript receives the binary on standard input into a temporary name
// in the private cache directory, checks its SHA-256 against $1, and only
// then renames it into place: a half-written or corrupted copy is never
// found under the final name, and several runs copying to one node (or to
// a home directory shared by many nodes) do not disturb each other. The
// temporary name, .ioswarm.part.NODE.PID, tells a later run whose it is
// (sweepFunc). A cache directory that is not private to the user is
// refused ("unsafe ..." instead of "placed"): the copy would be no safer
// than what is there.
// Placing a new build also removes other builds not run for 30 days
// (access time; the kernel refreshes it at least daily on exec), so
// upgrades do not pile up 16 MiB each in a home shared by a cluster; a
// build removed that is still wanted is just copied again. Only
// directories named like a SHA-256 are candidates. No script uses "!",
// which csh expands even inside single quotes.
var copyScript = placeScript(`cat >"$t" || exit 1; `)

// fetchScript is copyScript receiving the binary from another node's copy
// server (binserve) at host $2, port $3 instead of on standard input,
// which carries the server's token instead. The stream is a bash
// /dev/tcp socket, bounded by coreutils' timeout (which ends its whole
// process group); a node without either says "notools", a stream that
// fails exits 4, and the copy is then sent over SSH. The SHA-256 check is the
// same, so what a stream delivers is kept only if it is this build. With
// $4 "serve" the script then becomes the node's copy server (its input's
// second line is the server's token), which saves the node a session. $5
// is the stream's time limit in seconds, $6 the binary's size in bytes:
// the stream is cut there (head -c), so a server that sends without end
// cannot fill the user's home before the SHA-256 check rejects it.
var fetchScript = heldFetchScript + `; [ "$4" = serve ] && exec "$d/$1/ioswarm" serve-copy; exit 0`

// heldFetchScript is fetchScript without becoming a server: what a quick
// start's held session runs on "fetch" (quickTail).
var heldFetchScript = placeScript(`read -r k || exit 1; ` +
	`{ command -v bash && command -v timeout; } >/dev/null 2>&1 || { echo notools; exit 0; }; ` +
	`timeout "$5" bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 4; printf "%s\n" "$2" >&3; exec head -c "$3" <&3' ` +
	`"$2" "$3" "$k" "$6" >"$t" || exit 4; `)

// fetchTimeout bounds one fetch from another node: 16 MiB take well under
// a second on a cluster network, and a server that stopped answering must
// not hold the node long before it gets its copy over SSH. Until a fetch
// from a kind of server (the coordinator, or nodes) has worked, its
// fetches get untriedTimeout: a firewall that drops the packets of those
// ports makes a connect hang, not fail, and the two fetches that rule a
// kind out should not hold a launch for long.
const (
	fetchTimeout   = 30 * time.Second
	untriedTimeout = 10 * time.Second
)

// placeScript is the script that places a copy received by receive, which
// writes it to "$t". It leaves abandoned partial copies to the probe,
// which always runs moments before it in the same launch (sweepFunc).
func placeScript(receive string) string {
	return shaFunc + statFunc + nodeName + privFunc + `umask 077; d="$HOME/.cache/ioswarm"; ` +
		`mkdir -p "$d/$1" || exit 1; b=$(priv "$d" "$d/$1"); [ -n "$b" ] && { echo "$b"; exit 0; }; ` +
		`chmod 700 "$d" "$d/$1" || exit 1; ` +
		`t="$d/$1/.ioswarm.part.$n.$$"; trap 'rm -f "$t"' EXIT; trap 'rm -f "$t"; exit 1' HUP INT TERM PIPE; ` +
		receive + `r=$(sha <"$t") || exit 1; ` +
		`[ "${r%% *}" = "$1" ] || { echo "the copy has sha256 ${r%% *}" >&2; exit 3; }; ` +
		`chmod 700 "$t" && mv -f "$t" "$d/$1/ioswarm" || exit 1; trap - EXIT HUP INT TERM PIPE; ` +
		`f=$(fid "$d/$1/ioswarm") && printf '%s %s\n' "$1" "$f" >"$d/$1/ioswarm.verified.$n"; ` +
		`for o in "$d"/*; do b=${o##*/}; [ "$b" = "$1" ] && continue; [ ${#b} = 64 ] && [ -f "$o/ioswarm" ] && ` +
		`[ -n "$(find "$o/ioswarm" -atime +30 2>/dev/null)" ] && rm -rf "$o"; done; echo placed`
}

// probeCommand and copyCommand are the command lines of the two scripts;
// unames are the machine names a stamp may be written on (nil: any).
// Only a probe that looks at the cached copy makes the cache's tag: with
// --remote-bin nothing is written in the user's home.
func probeCommand(hash string, unames, paths []string) string {
	return shScript(probeText(paths), append([]string{hash, strings.Join(unames, " ")}, paths...)...)
}

// probeText is probeScript with its tag line for paths.
func probeText(paths []string) string {
	tag := `echo -; `
	if slices.Contains(paths, "") {
		tag = cacheTag
	}
	return strings.Replace(probeScript, probeTagSlot, tag, 1)
}

// quickCommand is the command line of quickScript for `ioswarm rank args`
// from the cached copy of build hash, with the probe of that copy as its
// fallback.
func quickCommand(hash string, unames, args []string) string {
	words := []string{"sh", "-c", quickText(), hash, hash, strings.Join(unames, " "), "", "--", "rank"}
	return shLine(append(words, args...)...)
}

// quickText is quickScript whole, with the probe of the cached copy.
func quickText() string { return quickScript + probeText([]string{""}) + quickTail }

// probeTagSlot stands in probeScript for the line that reports the tag.
const probeTagSlot = `: tag; `

func copyCommand(hash string) string { return shScript(copyScript, hash) }

// fetchCommand is the command line of fetchScript from host:port, the
// stream given limit (whole seconds, at least one) and cut at size bytes;
// with serve, the node then serves its copy (serve-copy) in the same
// session.
func fetchCommand(hash, host string, port int, serve bool, limit time.Duration, size int64) string {
	mode := "-"
	if serve {
		mode = "serve"
	}
	secs := strconv.Itoa(max(int(limit/time.Second), 1))
	return shScript(fetchScript, hash, host, strconv.Itoa(port), mode, secs, strconv.FormatInt(size, 10))
}
