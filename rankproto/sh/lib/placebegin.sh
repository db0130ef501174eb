# shellcheck shell=sh
# The start of placing a copy of build $1 in the private cache directory:
# the directories made and checked private (priv: "unsafe ..." and no
# copy when they are not), and the temporary name "$t",
# .ioswarm.part.NODE.PID, that tells a later run whose it is (sweep). It
# is removed on any way out until placeend.sh renames it into place.
# It needs n (nodename.sh) and priv (priv.sh).
# shellcheck disable=SC2154 # n is set by nodename.sh
umask 077; d="$HOME/.cache/ioswarm";
mkdir -p "$d/$1" || exit 1;
b=$(priv "$d" "$d/$1"); [ -n "$b" ] && { echo "$b"; exit 0; };
chmod 700 "$d" "$d/$1" || exit 1;
t="$d/$1/.ioswarm.part.$n.$$";
trap 'rm -f "$t"' EXIT;
trap 'rm -f "$t"; exit 1' HUP INT TERM PIPE;
