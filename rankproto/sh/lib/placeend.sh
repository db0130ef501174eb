# shellcheck shell=sh
# The end of placing a copy: "$t" (placebegin.sh), once received, is
# checked against the SHA-256 $1 and only then renamed into place, so a
# half-written or corrupted copy is never found under the final name, and
# several runs copying to one node (or to a home shared by many nodes) do
# not disturb each other. The copy is stamped (probe.sh) and "placed"
# printed. Placing a new build also removes other builds not run for 30
# days (access time; the kernel refreshes it at least daily on exec), so
# upgrades do not pile up in a home shared by a cluster; a build removed
# that is still wanted is just copied again. Only directories named like
# a SHA-256 are candidates.
# shellcheck disable=SC2154 # d, t and n are set by placebegin.sh and nodename.sh
r=$(sha <"$t") || exit 1;
[ "${r%% *}" = "$1" ] || { echo "the copy has sha256 ${r%% *}" >&2; exit 3; };
chmod 700 "$t" && mv -f "$t" "$d/$1/ioswarm" || exit 1;
trap - EXIT HUP INT TERM PIPE;
f=$(fid "$d/$1/ioswarm") && printf '%s %s\n' "$1" "$f" >"$d/$1/ioswarm.verified.$n";
for o in "$d"/*; do
	b=${o##*/}; [ "$b" = "$1" ] && continue;
	[ ${#b} = 64 ] && [ -f "$o/ioswarm" ] && [ -n "$(find "$o/ioswarm" -atime +30 2>/dev/null)" ] && rm -rf "$o";
done;
echo placed
