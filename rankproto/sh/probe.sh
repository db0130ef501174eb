# shellcheck shell=sh source-path=SCRIPTDIR
# probe.sh HASH UNAMES PATH...: what a node holds. It prints, one line
# each: the machine name (uname -m, read from /proc/sys/kernel/arch where
# the kernel has it, which saves a program), the home directory, the cache
# directory's tag (cachetag.sh; "-" when the probe looks at no cached
# copy, so --remote-bin writes nothing in the user's home), then for every
# PATH whether the file is there and executable, and its SHA-256:
# "absent", "nosha" when the node has no way to hash, else the digest. An
# empty PATH stands for the cached copy of build HASH, which is reported
# "unsafe ..." (priv) when the cache directories, the copy or its stamp
# are not private to the user.
# Hashing 16 MiB on every node at every start costs more than the SSH
# session itself, so after the cached copy has been hashed and found
# right, its fid is stamped beside it, per node; while the stamp still
# matches, the copy is reported verified without re-reading. (The rank
# still hashes its own running image and proves that hash to the
# coordinator: the stamp only spares this probe.) A stamp is written only
# on a node whose machine name is one of UNAMES (space-separated; empty
# when the build is not checked), since quick.sh starts a stamped copy
# without asking: nodes of two architectures may share a home. The stamp
# and the tag are all it ever writes; it removes abandoned partial copies
# (sweep).
. ./lib/sha.sh
. ./lib/fid.sh
. ./lib/nodename.sh
. ./lib/priv.sh
. ./lib/sweepmine.sh
. ./lib/sweep.sh
umask 077;
m=; { read -r m </proc/sys/kernel/arch; } 2>/dev/null || m=$(uname -m);
printf '%s\n' "$m" "$HOME";
. ./lib/cachetag.sh
h=$1; a=$2; shift 2;
for p in "$@"; do
	s=""; [ -n "$p" ] || { p="$HOME/.cache/ioswarm/$h/ioswarm"; s="$p.verified.$n"; sweep "$HOME/.cache/ioswarm"; };
	if [ -f "$p" ] && [ -x "$p" ]; then
		if [ -n "$s" ]; then b=$(priv "$HOME/.cache/ioswarm" "${p%/*}" "$p" "$s"); [ -n "$b" ] && { echo "$b"; continue; }; fi;
		if [ -n "$s" ] && f=$(fid "$p") && { v=; read -r v <"$s" || :; } 2>/dev/null && [ "$v" = "$h $f" ]; then echo "$h"; continue; fi;
		r=$(sha <"$p") || exit 1; r=${r%% *}; echo "$r";
		if [ -n "$s" ] && [ "$r" = "$h" ] && case " $a " in "  "|*" $m "*) :;; *) false;; esac && f=$(fid "$p"); then
			printf '%s %s\n' "$h" "$f" >"$s" 2>/dev/null;
		fi;
	else echo absent; fi;
done
