# shellcheck shell=sh
# sweep removes from the cache directory $1 the partial copies
# (".ioswarm.*" beside a build) that no copy is writing: those this node
# made whose copying shell is gone (sweepmine), and any untouched for
# longer than a copy may take (-mmin: rankproto.CopyTimeout in minutes; a
# copy still running past that has been cancelled by its launcher). A copy
# killed outright (SIGKILL, a node reset) runs no trap, so its partial
# file is left for the next run. find runs only where the shell's glob
# sees a partial copy at all.
sweep() {
	for o in "$1"/*/.ioswarm.*; do
		[ -e "$o" ] && {
			find "$1" -mindepth 2 -maxdepth 2 -type f -name '.ioswarm.*' -mmin +10 -exec rm -f {} + 2>/dev/null;
			break;
		};
	done;
	sweepmine "$1";
};
