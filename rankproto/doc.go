// Package rankproto is the protocol between a launcher and the rank
// process it starts, written down once: the rank's command line, the words
// on the process's standard input and output, and the shell scripts an SSH
// session runs on a node to find, place and start the binary. The
// coordinator builds the rank's argv and input with it, the launchers
// (local, ssh, srun) start and talk to processes with it, and the hidden
// commands (rank, serve-copy) read what it defines. It holds no I/O of its
// own beyond parsing a reader: sessions, deadlines and retries are the
// launchers'. It imports no other package of this project, so any of them
// may use it.
//
// # The rank process
//
// The launcher runs `<binary> rank --rank N --job ID --host NAME
// --heartbeat-timeout D` (Argv; srun adds --bcast-copy PATH). Nothing
// secret is on argv, which every user of a node can read. Standard input
// then carries, launcher to rank:
//
//	SECRET-HEX\n   the job secret, hex, at least the barrier's minimum
//	HOST:PORT\n    the coordinator's barrier address to dial
//
// (LaunchInput writes them, ReadLaunch reads them without buffering past
// them). A rank that cannot read both, or reads a malformed secret or an
// address without a port, exits with an error naming the line; it never
// dials. After these lines the input stays open for the life of the rank:
// its end means the coordinator is gone and the rank stops. The SSH
// launcher may write, on that input, to the rank of a node that has just
// received its verified copy:
//
//	serve TOKEN\n  serve this node's image to other nodes (binserve) with
//	               TOKEN; the rank answers on standard output
//	               "serving PORT\n" (PORT 0 where it cannot listen)
//	unserve\n      stop serving: every node has its copy
//
// The rank ignores any other line, a second serve while serving, and an
// unserve while not serving; a line too long to read is skipped. Its
// server also ends with the input and after a limit of its own. The
// launcher waits for "serving PORT" a bounded time (ServeAnswerWait): with
// no answer by then (or once the launch is cancelled) it writes unserve;
// an answer that is not "serving" and a positive port means the rank
// serves no one.
//
// After a rank died, the coordinator has the launcher run `<binary> cleanup
// --dir DIR --job ID` (CleanupArgs) on its node to remove the job's files.
//
// serve-copy, run by fetch.sh in a session of its own, reads the token as
// its first input line and answers "serving PORT" the same way; the end of
// its input stops it.
//
// # The SSH session scripts
//
// sshd hands a command to the user's login shell as `$SHELL -c COMMAND`.
// Every command line here is therefore one line of words each quoted for
// a POSIX shell (QuoteSh), running an explicit `sh -c SCRIPT ARGS...`, so
// that a login shell of another family never interprets the scripts. The
// scripts are the go:embed'ed files in sh/, written one statement per line
// for people and shellcheck; a script is sent as its lines joined by single
// spaces, comment lines left out and `. ./FILE.sh` lines replaced by that
// file's text (anything after the file name is kept). So the command is one
// line, since csh refuses a newline inside quotes, and no script may hold
// "!", which csh expands even inside single quotes (tests check both).
//
// probe.sh HASH UNAMES PATH...: probing a node. Output, one line each:
//
//	MACHINE          uname -m
//	HOME             the login's home directory
//	TAG              the cache directory's tag (16 hex digits) or "-"
//	STATE...         one per PATH: a SHA-256, "absent", "nosha", or for the
//	                 cached copy "unsafe OWNER UID MODE TYPE PATH"
//
// A different number of lines (a login shell that prints something) is an
// error naming the answer (ParseProbe); a TAG that is not 16 hex digits
// counts as none.
//
// copy.sh HASH: the binary on standard input. Answer "placed", or "unsafe
// OWNER UID MODE TYPE PATH" (UnsafeCacheError), anything else is an error
// naming it. A copy with another SHA-256 exits 3.
//
// fetch.sh HASH HOST PORT MODE SECONDS SIZE: as copy.sh, the binary
// streamed from the copy server at HOST:PORT, the token on the first input
// line; SECONDS bounds the stream and SIZE cuts it. Answers "placed",
// "notools" (no bash or timeout on the node: copy over SSH instead),
// "unsafe ...", or none (exit 4: the stream failed). With MODE "serve" the
// session then runs serve-copy, its token on the second input line, which
// answers "serving PORT".
//
// quick.sh, the first session on a node whose binary is the cached copy
// (QuickCommand), answers with exactly one of:
//
//	start PID HOME\n   the stamped copy verified: the rank runs (its PID, the
//	                   home directory); the launcher now writes the launch
//	                   input, and the rest of the output is the rank's
//	probe\n            followed by probe.sh's four lines for the cached copy;
//	                   the session then waits for a line from the launcher
//
// and then, held, takes from the launcher:
//
//	go\n                                 start the rank: "start PID HOME"
//	fetch HOST PORT SECONDS SIZE\nTOKEN\n place a streamed copy (heldfetch.sh):
//	                                     its answer line ("placed",
//	                                     "notools", "unsafe ..."), any error
//	                                     lines, then "fetched STATUS\n"
//	probe\n                              probe.sh's four lines again
//
// Any other line, or the input's end, ends the session. A first line that
// is neither "start PID HOME" (PID > 1, HOME absolute) nor "probe" ends the
// session at once, since a rank may be waiting behind it, and is reported
// with what followed it. In a fetch the launcher takes the first of
// "placed", "notools" or "unsafe ..." as the answer and keeps up to
// MaxHeldLines other lines for the error message.
//
// start.sh EXE rank ARGS... (RankCommand): a rank in a session of its own
// prints its PID on the first line, then the rank's output follows.
//
// # Deadlines
//
// The launcher bounds every wait for an answer; a peer that is silent past
// it is cut off and its session closed: a probe (first session or held)
// gets the connect timeout plus a minute, a copy over SSH CopyTimeout, a
// fetch its stream limit plus the connect timeout, a "serving" answer
// ServeAnswerWait. The scripts themselves bound only the stream (timeout).
// A partial copy older than CopyTimeout is abandoned and swept by the next
// probe (sweep.sh's -mmin, checked against CopyTimeout by a test).
package rankproto
