# shellcheck shell=sh source-path=SCRIPTDIR
# heldfetch.sh HASH HOST PORT - SECONDS SIZE: copy.sh receiving the binary
# from a copy server (binserve: the coordinator's, or another node's) at
# HOST:PORT instead of on standard input, whose first line carries the
# server's token instead. The stream is a bash /dev/tcp socket, bounded by
# coreutils' timeout (which ends its whole process group) to SECONDS; a
# node without either says "notools", a stream that fails exits 4, and the
# copy is then sent over SSH. The stream is cut at SIZE bytes (head -c), so
# a server that sends without end cannot fill the user's home before the
# SHA-256 check rejects it. A quick start's held session runs it on
# "fetch" (quick.sh); fetch.sh runs it in a session of its own.
. ./lib/sha.sh
. ./lib/fid.sh
. ./lib/nodename.sh
. ./lib/priv.sh
. ./lib/placebegin.sh
read -r k || exit 1;
{ command -v bash && command -v timeout; } >/dev/null 2>&1 || { echo notools; exit 0; };
# shellcheck disable=SC2016 # the inner script's words are bash's, not this shell's
timeout "$5" bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 4; printf "%s\n" "$2" >&3; exec head -c "$3" <&3' "$2" "$3" "$k" "$6" >"$t" || exit 4;
. ./lib/placeend.sh
